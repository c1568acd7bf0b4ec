//! Named outputs: the scalar quantities of a configuration q that researchers compare (a
//! pendulum's angle, a slider's position, a chain's end point). Every scene declares its own
//! ([`Scene::outputs`]); any body's pose coordinate or any body-fixed point is addressable
//! generically as `body<i>.<coordinate>` or `body<i>.point(px, py[, pz]).<axis>`.

use super::Scene;
use crate::model::{BodyKind, BodyPoint};
use crate::system::System;

/// What an output measures, as a function of the positions q.
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
    /// A signed sum of quantities of one unit, e.g. a relative angle θ₂ − θ₁ (model files).
    Sum {
        /// (factor, quantity) pairs.
        terms: Vec<(f64, Quantity)>,
    },
}

impl Quantity {
    /// The value at positions `q`.
    pub fn value(&self, system: &System, q: &[f64]) -> f64 {
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
            Quantity::Sum { terms } => terms.iter().map(|(s, t)| s * t.value(system, q)).sum(),
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

    /// The value at positions `q`.
    pub fn value(&self, system: &System, q: &[f64]) -> f64 {
        self.quantity.value(system, q)
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
    /// Why the state `q` is off the branch, or None when it is on it.
    pub fn violated(&self, system: &System, q: &[f64]) -> Option<String> {
        let x = self.output.value(system, q);
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
pub const GENERIC_OUTPUTS: &str = "body<i>.x|y|z, body<i>.angle (planar rigid), body<i>.qw|qx|qy|qz (rigid 3D), body<i>.point(px,py[,pz]).x|y|z (a body-fixed point, body frame, m)";

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
            let axis = ["x", "y", "z"][..dim].iter().position(|a| *a == axis)?;
            let mut l = [0.0; 3];
            l[..local.len()].copy_from_slice(&local);
            let point = BodyPoint { body, local: l };
            return Some(Output {
                name: name.into(),
                unit: "m",
                describes: format!("world {} of the point ({}) of body {body}", ["x", "y", "z"][axis], args.trim()),
                quantity: Quantity::Point { point, axis },
            });
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

#[cfg(test)]
mod tests {
    use crate::scene::registry as scenes;

    #[test]
    fn named_and_generic_outputs_evaluate_on_the_initial_state() {
        let s = scenes::find("pendulum").unwrap().build_default(&[]).unwrap();
        let theta = s.output("theta").unwrap();
        let q = &s.q0;
        assert!((theta.value(&s.system, q) - q[0].atan2(-q[1])).abs() == 0.0);
        assert_eq!(s.output("body0.y").unwrap().value(&s.system, q), q[1]);
        assert_eq!(s.output("body0.point(0,0).x").unwrap().value(&s.system, q), q[0]);
        for bad in ["body1.x", "body0.angle", "body0.point(1,0).x", "body0.point(0,0).z", "bodyx", "theta2"] {
            let e = s.output(bad).unwrap_err().to_string();
            assert!(e.contains("expected one of: theta"), "{bad}: {e}");
        }
        let w = theta.difference(3.1, -3.1);
        assert!((w - (6.2 - std::f64::consts::TAU)).abs() < 1e-15);
    }
}
