//! Scenes: parametrised mechanisms with a consistent initial state and, where one exists, a
//! reference solution (docs/design.md §5). One file per scene; the list is in [`registry`].

pub mod model_file;
pub mod output;
pub mod parametrization;
pub mod registry;

registry! {
    /// Every scene, in `list` order.
    pub const SCENES: &[registry::SceneEntry] = [
        bead,
        pendulum,
        double_pendulum,
        chain,
        cloth,
        slider_crank,
        four_bar,
        torque_free,
        chain_3d,
        door,
        piston,
        welded_pendulum,
        ramp,
        box_stack,
        bounce,
        incline,
    ];
}

use crate::system::{ModelError, System};
pub use output::{Invariant, Output, Quantity, UnknownOutput};
pub use parametrization::{AngleChain, Parametrization};

/// A known answer a scene can be checked against.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// The simple pendulum released at rest from θ₀, pivot at the origin: exact θ(t) and period.
    ///
    /// θ(t) = 2 asin(k sn(K(k²) − ω t | k²)), k = sin(θ₀/2), ω = √(g/L); T = 4 K(k²)/ω
    /// (Landau & Lifshitz, Mechanics, §11 problem 1; Lawden, Elliptic Functions, §5.2).
    Pendulum {
        /// Rod length L \[m\].
        length: f64,
        /// Gravity g \[m/s²\].
        gravity: f64,
        /// Release angle θ₀ from the downward vertical \[rad\].
        theta0: f64,
    },
}

impl Reference {
    /// What the reference error measures, for reports.
    pub fn describes(&self) -> &'static str {
        match self {
            Reference::Pendulum { .. } => {
                "|theta(t) - theta_exact(t)| [rad], theta_exact from Jacobi sn (exact solution)"
            }
        }
    }

    /// Unit of the reference error.
    pub fn unit(&self) -> &'static str {
        match self {
            Reference::Pendulum { .. } => "rad",
        }
    }

    /// The exact period \[s\], if the motion is periodic.
    pub fn period(&self) -> Option<f64> {
        match self {
            Reference::Pendulum { length, gravity, theta0 } => Some(pendulum::exact_period(*length, *gravity, *theta0)),
        }
    }

    /// The reference error of the Cartesian configuration `q` at time `t` \[s\]: for the pendulum
    /// the angle difference wrapped into (−π, π], in absolute value.
    pub fn error(&self, t: f64, q: &[f64]) -> f64 {
        match self {
            Reference::Pendulum { length, gravity, theta0 } => {
                let theta = q[0].atan2(-q[1]);
                let d = theta - pendulum::exact_angle(*length, *gravity, *theta0, t);
                let pi = std::f64::consts::PI;
                ((d + pi).rem_euclid(2.0 * pi) - pi).abs()
            }
        }
    }
}

/// The characteristic energy that energy errors are divided by.
#[derive(Clone, Debug, PartialEq)]
pub struct EnergyScale {
    /// Value \[J\].
    pub joules: f64,
    /// How it is defined for this scene (stated in reports).
    pub definition: String,
}

/// A built scene: the system and its initial state.
#[derive(Debug)]
pub struct Scene {
    /// Name of the scene: its registry name, or a model file's `model`.
    pub name: String,
    /// Bodies, forces and constraints.
    pub system: System,
    /// Initial positions (C(q0) = 0 to rounding).
    pub q0: Vec<f64>,
    /// Initial velocities (J v0 = 0 to rounding).
    pub v0: Vec<f64>,
    /// Known answer, if any.
    pub reference: Option<Reference>,
    /// Scale of relative energy errors.
    pub energy_scale: EnergyScale,
    /// Reduced coordinates q = q(u), for scenes that have a global one (open chains).
    pub parametrization: Option<Box<dyn Parametrization>>,
    /// The outputs the scene names (generic body addresses come on top: [`Scene::output`]).
    pub outputs: Vec<Output>,
    /// Invariants that identify the assembly branch the run must stay on (a mechanism whose
    /// constraints admit several assemblies, e.g. through singular configurations): a run whose
    /// state leaves one after any step ends as `left branch`, not `ok`.
    pub branch: Vec<Invariant>,
}

/// A scene that cannot be built from the given parameters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The model rejected a body, force or constraint.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The parameters describe a mechanism that cannot be assembled.
    #[error("scene {scene}: {reason}")]
    Geometry {
        /// Scene name.
        scene: &'static str,
        /// Why (naming the parameters involved).
        reason: String,
    },
}

/// A rigid-3D pose: position \[m\] and unit quaternion (w, x, y, z), as stored in q.
pub type Pose3 = ([f64; 3], [f64; 4]);

/// The pose with position `x` \[m\] and orientation `r`.
pub fn pose3(x: nalgebra::Vector3<f64>, r: nalgebra::UnitQuaternion<f64>) -> Pose3 {
    ([x.x, x.y, x.z], [r.w, r.i, r.j, r.k])
}

/// Appends a rigid-3D pose to an initial position vector.
pub fn push_pose(q0: &mut Vec<f64>, pose: Pose3) {
    q0.extend_from_slice(&pose.0);
    q0.extend_from_slice(&pose.1);
}

impl Scene {
    /// The mechanism's extent \[m\]: the diagonal of the bounding box of its body centres at q0
    /// and the world origin (a pendulum of length L: L; a chain of N links of length L laid out
    /// straight: N L), or 1 m when that is zero (a single body at the origin). O(bodies). A
    /// registered scene's length scale, which its default divergence bound and the jump rule of
    /// [`largest_jump`] use.
    pub fn extent(&self) -> f64 {
        let sys = &self.system;
        let (mut lo, mut hi) = ([0.0f64; 3], [0.0f64; 3]);
        for (i, b) in sys.bodies().iter().enumerate() {
            if b.kind == crate::model::BodyKind::Clock {
                continue;
            }
            let o = sys.q_offsets()[i];
            for k in 0..b.kind.dim() {
                lo[k] = lo[k].min(self.q0[o + k]);
                hi[k] = hi[k].max(self.q0[o + k]);
            }
        }
        let d = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
        if d > 0.0 && d.is_finite() { d } else { 1.0 }
    }
}

/// The largest change of a body's position \[m\] and of a planar body's angle \[rad\] between two
/// position vectors of `system` (one step's motion), for the rule that tells a divergence from a
/// move to another assembly branch: a step that moves a body by more than the mechanism's length
/// scale, or turns a planar body by more than π, is a jump no step of a converging integration
/// makes.
pub fn largest_jump(system: &crate::system::System, before: &[f64], after: &[f64]) -> (f64, f64) {
    let (mut dx, mut da) = (0.0f64, 0.0f64);
    let nan_max = |m: f64, x: f64| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x) };
    for (i, b) in system.bodies().iter().enumerate() {
        let o = system.q_offsets()[i];
        match b.kind {
            crate::model::BodyKind::Clock => continue,
            crate::model::BodyKind::Rigid2 => da = nan_max(da, (after[o + 2] - before[o + 2]).abs()),
            _ => {}
        }
        let d2: f64 = (0..b.kind.dim()).map(|k| (after[o + k] - before[o + k]).powi(2)).sum();
        dx = nan_max(dx, d2.sqrt());
    }
    (dx, da)
}

#[cfg(test)]
mod tests {
    use crate::params::Scalar;

    #[test]
    fn the_pendulum_reference_error_is_the_wrapped_angle_difference() {
        // Regression: angle errors were not wrapped and exceeded π (a cell a turn ahead read as
        // 6 rad off). At any t, a bob at θ_exact + 2π − 0.1 is 0.1 rad off, never more than π.
        let r = super::Reference::Pendulum { length: 1.0, gravity: 9.81, theta0: 1.0 };
        for t in [0.0, 0.3, 1.7] {
            let exact = super::pendulum::exact_angle(1.0, 9.81, 1.0, t);
            for (off, want) in
                [(2.0 * std::f64::consts::PI - 0.1, 0.1), (3.0, 3.0), (-3.5, 2.0 * std::f64::consts::PI - 3.5)]
            {
                let th = exact + off;
                let e = r.error(t, &[th.sin(), -th.cos()]);
                assert!((e - want).abs() < 1e-12, "t = {t}, off {off}: {e}");
            }
        }
    }

    #[test]
    fn the_extent_is_the_mechanisms_size() {
        // A 1 m pendulum: 1 m (its bob from the pivot at the origin), so a drift of 65 m is a
        // divergence by the default bound (it was 100 for every registered scene). The chain of 10
        // masses 1 m apart along x, the first pinned at the origin: 9 m.
        let scene = |name: &str, p: &[(&str, f64)]| {
            let given: Vec<(&str, Scalar)> = p.iter().map(|(k, v)| (*k, Scalar::Num(*v))).collect();
            super::registry::find(name).unwrap().build_default(&given).unwrap()
        };
        let pendulum = scene("pendulum", &[("length", 1.0)]);
        assert!((pendulum.extent() - 1.0).abs() < 1e-12, "{}", pendulum.extent());
        let chain = scene("chain", &[("n", 10.0), ("link", 1.0)]);
        assert!((chain.extent() - 9.0).abs() < 1e-12, "{}", chain.extent());
    }
}
