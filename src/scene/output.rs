//! Named outputs: the scalar quantities of a state (q, v) that researchers compare (a
//! pendulum's angle, a slider's position, a chain's end point, a ball's speed). Every scene
//! declares its own ([`Scene::outputs`]); any body's pose coordinate, velocity or angular rate
//! and any body-fixed point's position or velocity is addressable generically as
//! `body<i>.<coordinate>`, `body<i>.vx|vy|vz`, `body<i>.omega` (planar), `body<i>.wx|wy|wz`
//! (rigid 3D) or `body<i>.point(px, py[, pz]).<axis>` and `.v<axis>`.

use super::Scene;
use crate::model::{BodyKind, BodyPoint};
use crate::system::System;

/// What an output measures, as a function of the state (q, v).
#[derive(Clone, Debug, PartialEq)]
pub enum Quantity {
    /// Position coordinate `index` of a body's slice of q (x, y, z; a planar body's angle θ; a
    /// rigid-3D body's quaternion w, x, y, z).
    Coord {
        /// Body index.
        body: usize,
        /// Index into the body's position coordinates.
        index: usize,
    },
    /// World coordinate `axis` (0 = x, 1 = y, 2 = z) of a body point \[m\].
    Point {
        /// The point.
        point: BodyPoint,
        /// 0 = x, 1 = y, 2 = z.
        axis: usize,
    },
    /// The angle \[rad\] from the downward vertical (−y) of the segment from `from` (None: the
    /// origin) to `to` in the x–y plane: atan2(Δx, −Δy) ∈ (−π, π], counter-clockwise positive.
    Swing {
        /// Start of the segment (None: the world origin).
        from: Option<BodyPoint>,
        /// End of the segment.
        to: BodyPoint,
    },
    /// World velocity component `axis` (0 = x, 1 = y, 2 = z) of a body point \[m/s\] (the
    /// body's centre: the point (0, 0, 0)).
    PointVelocity {
        /// The point.
        point: BodyPoint,
        /// 0 = x, 1 = y, 2 = z.
        axis: usize,
    },
    /// World angular velocity component `axis` of a rigid body \[rad/s\]: a planar body's ω is
    /// axis 2; a rigid-3D body's ω = R(Q) Ω (its v holds Ω in the body frame).
    AngularRate {
        /// Body index.
        body: usize,
        /// 0 = x, 1 = y, 2 = z.
        axis: usize,
    },
    /// The multiplier λ of constraint row `row` (Q̂ = Jᵀλ; N for a length row, N m for an angle
    /// row): known at samples only, where the run recovers λ (NaN elsewhere — events and branch
    /// invariants refuse it).
    Multiplier {
        /// Global constraint row.
        row: usize,
    },
    /// A signed sum of quantities of one unit, e.g. a relative angle θ₂ − θ₁ (model files).
    Sum {
        /// (factor, quantity) pairs.
        terms: Vec<(f64, Quantity)>,
    },
}

impl Quantity {
    /// The value at the state (q, v); a multiplier is NaN (see [`Quantity::value_with`]).
    pub fn value(&self, system: &System, q: &[f64], v: &[f64]) -> f64 {
        self.value_with(system, q, v, None)
    }

    /// Whether the value needs the multipliers λ.
    pub fn needs_lambda(&self) -> bool {
        match self {
            Quantity::Multiplier { .. } => true,
            Quantity::Sum { terms } => terms.iter().any(|(_, t)| t.needs_lambda()),
            _ => false,
        }
    }

    /// The value at the state (q, v) with the multipliers `lambda` (one per constraint row) when
    /// known.
    pub fn value_with(&self, system: &System, q: &[f64], v: &[f64], lambda: Option<&[f64]>) -> f64 {
        let slices = |body: usize| {
            let kind = system.bodies()[body].kind;
            let (qo, vo) = (system.q_offsets()[body], system.offsets()[body]);
            (kind, &q[qo..qo + kind.nq()], &v[vo..vo + kind.dof()])
        };
        let world = |p: &BodyPoint| {
            let (kind, off) = (system.bodies()[p.body].kind, system.q_offsets()[p.body]);
            p.world(kind, &q[off..off + kind.nq()])
        };
        match self {
            Quantity::Coord { body, index } => q[system.q_offsets()[*body] + index],
            Quantity::Point { point, axis } => world(point)[*axis],
            Quantity::Swing { from, to } => {
                let a = from.as_ref().map_or([0.0; 3], world);
                let b = world(to);
                (b[0] - a[0]).atan2(a[1] - b[1])
            }
            Quantity::PointVelocity { point, axis } => {
                let (kind, qb, vb) = slices(point.body);
                point.velocity(kind, qb, vb)[*axis]
            }
            Quantity::AngularRate { body, axis } => match slices(*body) {
                (BodyKind::Rigid2, _, vb) if *axis == 2 => vb[2],
                (BodyKind::Rigid3, qb, vb) => {
                    (crate::model::rotation::rotation_matrix(&qb[3..7]) * crate::model::rotation::vec3(&vb[3..6]))
                        [*axis]
                }
                _ => 0.0, // particles and in-plane axes do not turn
            },
            Quantity::Multiplier { row } => lambda.and_then(|l| l.get(*row).copied()).unwrap_or(f64::NAN),
            Quantity::Sum { terms } => terms.iter().map(|(s, t)| s * t.value_with(system, q, v, lambda)).sum(),
        }
    }
}

/// A named scalar output of a scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The name configs use (`theta`, `body1.x`).
    pub name: String,
    /// Unit (`m`, `rad`, `1` for quaternion components).
    pub unit: &'static str,
    /// What it is, for `list` and reports.
    pub describes: String,
    /// How it is computed.
    pub quantity: Quantity,
}

impl Output {
    /// A scene-declared output.
    pub fn new(name: &str, unit: &'static str, describes: &str, quantity: Quantity) -> Self {
        Output { name: name.into(), unit, describes: describes.into(), quantity }
    }

    /// Whether the output is an angle defined modulo 2π (differences are then wrapped to
    /// (−π, π], and a jump of more than π between samples is a wrap, not a crossing).
    pub fn is_angle(&self) -> bool {
        self.unit == "rad"
    }

    /// The value at the state (q, v).
    pub fn value(&self, system: &System, q: &[f64], v: &[f64]) -> f64 {
        self.quantity.value(system, q, v)
    }

    /// The value at the state (q, v) with the multipliers λ when known.
    pub fn value_with(&self, system: &System, q: &[f64], v: &[f64], lambda: Option<&[f64]>) -> f64 {
        self.quantity.value_with(system, q, v, lambda)
    }

    /// a − b, wrapped to (−π, π] for angles.
    pub fn difference(&self, a: f64, b: f64) -> f64 {
        let d = a - b;
        if self.is_angle() && d.is_finite() {
            let tau = std::f64::consts::TAU;
            let w = d - tau * (d / tau).round();
            if w <= -std::f64::consts::PI { w + tau } else { w }
        } else {
            d
        }
    }
}

/// A branch invariant: an output that stays within \[min, max\] on the mechanism's assembly
/// branch (e.g. a coupler's angle near 0 on a parallelogram's branch).
#[derive(Clone, Debug, PartialEq)]
pub struct Invariant {
    /// The quantity watched.
    pub output: Output,
    /// Lower bound (the output's unit).
    pub min: f64,
    /// Upper bound (the output's unit).
    pub max: f64,
}

impl Invariant {
    /// Why the state (q, v) is off the branch, or None when it is on it.
    pub fn violated(&self, system: &System, q: &[f64], v: &[f64]) -> Option<String> {
        let x = self.output.value(system, q, v);
        (!(x >= self.min && x <= self.max)).then(|| {
            format!(
                "left the assembly branch: {} = {x:.6e} {} outside [{}, {}]",
                self.output.name, self.output.unit, self.min, self.max
            )
        })
    }
}

/// The coordinate names of a body kind's slice of q, with their units.
fn coordinates(kind: BodyKind) -> &'static [(&'static str, &'static str)] {
    match kind {
        BodyKind::Particle2 => &[("x", "m"), ("y", "m")],
        BodyKind::Particle3 => &[("x", "m"), ("y", "m"), ("z", "m")],
        BodyKind::Rigid2 => &[("x", "m"), ("y", "m"), ("angle", "rad")],
        BodyKind::Rigid3 => &[("x", "m"), ("y", "m"), ("z", "m"), ("qw", "1"), ("qx", "1"), ("qy", "1"), ("qz", "1")],
        BodyKind::Clock => &[("t", "s")],
    }
}

/// The generic addresses, for `list` and error messages.
pub const GENERIC_OUTPUTS: &str = "body<i>.x|y|z, body<i>.angle (planar rigid), body<i>.qw|qx|qy|qz (rigid 3D), body<i>.point(px,py[,pz]).x|y|z (a body-fixed point, body frame, m), body<i>.vx|vy|vz and body<i>.point(px,py[,pz]).vx|vy|vz (world velocity, m/s), body<i>.omega (planar rigid) and body<i>.wx|wy|wz (rigid 3D; world angular velocity, rad/s)";

/// An output name a scene does not have: neither one it declares nor a generic body address.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown output `{}` of scene `{scene}`; expected one of: {}{}{GENERIC_OUTPUTS} (bodies 0..{})",
    crate::params::short(name),
    declared.join(", "),
    if declared.is_empty() { "" } else { ", or " },
    bodies.saturating_sub(1)
)]
pub struct UnknownOutput {
    /// The name asked for.
    pub name: String,
    /// The scene.
    pub scene: String,
    /// The outputs the scene declares.
    pub declared: Vec<String>,
    /// How many bodies it has (for the generic addresses).
    pub bodies: usize,
}

impl Scene {
    /// The output called `name`: one the scene declares, or a generic body address. The error
    /// names the valid choices.
    pub fn output(&self, name: &str) -> Result<Output, UnknownOutput> {
        if let Some(o) = self.outputs.iter().find(|o| o.name == name) {
            return Ok(o.clone());
        }
        self.generic_output(name).ok_or_else(|| UnknownOutput {
            name: name.into(),
            scene: self.name.to_string(),
            declared: self.outputs.iter().map(|o| o.name.clone()).collect(),
            bodies: self.system.bodies().len(),
        })
    }

    fn generic_output(&self, name: &str) -> Option<Output> {
        let rest = name.strip_prefix("body")?;
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let body: usize = rest[..digits].parse().ok()?;
        let kind = self.system.bodies().get(body)?.kind;
        let rest = rest[digits..].strip_prefix('.')?;
        if let Some(point) = rest.strip_prefix("point(") {
            let (args, axis) = point.split_once(").")?;
            let local: Vec<f64> = args.split(',').map(|a| a.trim().parse::<f64>()).collect::<Result<_, _>>().ok()?;
            let dim = kind.dim();
            let planar_ok = local.len() == 2 || (local.len() == 3 && local[2] == 0.0);
            if !(local.len() == dim || dim == 2 && planar_ok) || !local.iter().all(|x| x.is_finite()) {
                return None;
            }
            let particle = matches!(kind, BodyKind::Particle2 | BodyKind::Particle3);
            if particle && local.iter().any(|x| *x != 0.0) {
                return None; // a particle has no extent
            }
            let mut l = [0.0; 3];
            l[..local.len()].copy_from_slice(&local);
            let point = BodyPoint { body, local: l };
            if let Some(axis) = axis.strip_prefix('v') {
                let axis = ["x", "y", "z"][..dim].iter().position(|a| *a == axis)?;
                return Some(Output {
                    name: name.into(),
                    unit: "m/s",
                    describes: format!(
                        "world {} velocity of the point ({}) of body {body}",
                        ["x", "y", "z"][axis],
                        args.trim()
                    ),
                    quantity: Quantity::PointVelocity { point, axis },
                });
            }
            let axis = ["x", "y", "z"][..dim].iter().position(|a| *a == axis)?;
            return Some(Output {
                name: name.into(),
                unit: "m",
                describes: format!("world {} of the point ({}) of body {body}", ["x", "y", "z"][axis], args.trim()),
                quantity: Quantity::Point { point, axis },
            });
        }
        if let Some(o) = rate(name, body, kind, rest) {
            return Some(o);
        }
        let (index, (coord, unit)) = coordinates(kind).iter().enumerate().find(|(_, (c, _))| *c == rest)?;
        Some(Output {
            name: name.into(),
            unit,
            describes: format!("coordinate {coord} of body {body}"),
            quantity: Quantity::Coord { body, index },
        })
    }
}

/// `body<i>.vx|vy|vz` (the centre's world velocity), `.omega` (a planar rigid body's ω) or
/// `.wx|wy|wz` (a rigid-3D body's world angular velocity).
fn rate(name: &str, body: usize, kind: BodyKind, rest: &str) -> Option<Output> {
    let axes = ["x", "y", "z"];
    if let Some(axis) = rest.strip_prefix('v').and_then(|a| axes[..kind.dim()].iter().position(|x| *x == a)) {
        return Some(Output {
            name: name.into(),
            unit: "m/s",
            describes: format!("world {} velocity of body {body}", axes[axis]),
            quantity: Quantity::PointVelocity { point: BodyPoint::center(body), axis },
        });
    }
    let axis = match (kind, rest) {
        (BodyKind::Rigid2, "omega") => 2,
        (BodyKind::Rigid3, w) => axes.iter().position(|x| w.strip_prefix('w') == Some(*x))?,
        _ => return None,
    };
    Some(Output {
        name: name.into(),
        unit: "rad/s",
        describes: format!(
            "world angular velocity{} of body {body}",
            if kind == BodyKind::Rigid2 { String::new() } else { format!(" about {}", axes[axis]) }
        ),
        quantity: Quantity::AngularRate { body, axis },
    })
}

#[cfg(test)]
mod tests {
    use crate::scene::registry as scenes;

    #[test]
    fn named_and_generic_outputs_evaluate_on_the_initial_state() {
        let s = scenes::find("pendulum").unwrap().build_default(&[]).unwrap();
        let theta = s.output("theta").unwrap();
        let q = &s.q0;
        let v = &s.v0;
        assert!((theta.value(&s.system, q, v) - q[0].atan2(-q[1])).abs() == 0.0);
        assert_eq!(s.output("body0.y").unwrap().value(&s.system, q, v), q[1]);
        assert_eq!(s.output("body0.point(0,0).x").unwrap().value(&s.system, q, v), q[0]);
        assert_eq!(s.output("body0.vy").unwrap().value(&s.system, q, v), v[1]);
        for bad in [
            "body1.x",
            "body0.angle",
            "body0.point(1,0).x",
            "body0.point(0,0).z",
            "bodyx",
            "theta2",
            "body0.omega",
            "body0.vz",
        ] {
            let e = s.output(bad).unwrap_err().to_string();
            assert!(e.contains("expected one of: theta"), "{bad}: {e}");
        }
        let w = theta.difference(3.1, -3.1);
        assert!((w - (6.2 - std::f64::consts::TAU)).abs() < 1e-15);
    }

    /// Every velocity output is the time derivative of the matching position output: a central
    /// difference over q ⊕ ±ε v agrees to its O(ε²) truncation (ε = 1e-6 s, speeds and lever arms
    /// of order 1, so ≈ 1e-12) plus rounding (≈ 1e-16 / ε = 1e-10): 1e-8 leaves a margin of 100.
    #[test]
    fn velocity_outputs_are_the_derivatives_of_the_positions() {
        use crate::model::Body;
        use crate::scene::Scene;
        let mut sys = crate::system::System::new();
        sys.add_body(Body::rigid2(2.0, 0.3)).unwrap();
        sys.add_body(Body::rigid3(1.0, [0.1, 0.2, 0.3])).unwrap();
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let q = vec![0.1, 0.2, 0.7, 0.3, -0.2, 0.5, h, 0.0, h * 0.6, h * 0.8];
        let v = vec![0.4, -0.3, 1.3, 0.2, 0.1, -0.5, 0.9, -1.1, 0.6];
        let scene = Scene {
            name: "velocities".into(),
            system: sys,
            q0: q.clone(),
            v0: v.clone(),
            reference: None,
            energy_scale: crate::scene::EnergyScale { joules: 1.0, definition: String::new() },
            parametrization: None,
            outputs: vec![],
            branch: vec![],
        };
        let eps = 1e-6;
        let (mut plus, mut minus) = (q.clone(), q.clone());
        scene.system.advance(&mut plus, &v, eps);
        scene.system.advance(&mut minus, &v, -eps);
        let rate = |name: &str, of: &str| {
            let (o, p) = (scene.output(name).unwrap(), scene.output(of).unwrap());
            let fd = (p.value(&scene.system, &plus, &v) - p.value(&scene.system, &minus, &v)) / (2.0 * eps);
            (o.value(&scene.system, &q, &v), fd)
        };
        for (name, of) in [
            ("body0.vx", "body0.x"),
            ("body0.vy", "body0.y"),
            ("body0.omega", "body0.angle"),
            ("body0.point(0.3, -0.2).vx", "body0.point(0.3, -0.2).x"),
            ("body0.point(0.3, -0.2).vy", "body0.point(0.3, -0.2).y"),
            ("body1.vz", "body1.z"),
            ("body1.point(0.2, -0.4, 0.5).vx", "body1.point(0.2, -0.4, 0.5).x"),
            ("body1.point(0.2, -0.4, 0.5).vy", "body1.point(0.2, -0.4, 0.5).y"),
            ("body1.point(0.2, -0.4, 0.5).vz", "body1.point(0.2, -0.4, 0.5).z"),
        ] {
            let (exact, fd) = rate(name, of);
            assert!((exact - fd).abs() < 1e-8, "{name}: {exact} against {fd}");
        }
        // ω in the world frame: the velocity of a point r away from the centre is ω × R r.
        let w: Vec<f64> = ["body1.wx", "body1.wy", "body1.wz"]
            .iter()
            .map(|n| scene.output(n).unwrap().value(&scene.system, &q, &v))
            .collect();
        let r = crate::model::rotation::rotation_matrix(&q[6..10]) * nalgebra::Vector3::new(0.2, -0.4, 0.5);
        let expect = nalgebra::Vector3::new(w[0], w[1], w[2]).cross(&r);
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            let p = scene.output(&format!("body1.point(0.2, -0.4, 0.5).v{axis}")).unwrap().value(&scene.system, &q, &v);
            let c = scene.output(&format!("body1.v{axis}")).unwrap().value(&scene.system, &q, &v);
            assert!((p - c - expect[k]).abs() < 1e-14, "{axis}");
        }
    }
}
