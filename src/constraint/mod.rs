//! Holonomic constraints C(q) = 0, written once and consumed by every formulation.
//!
//! A constraint owns `rows()` consecutive rows of the stacked C and of J = ∂C/∂q, and touches one or
//! two bodies. Its kernels see only the *local* coordinates: the slices of its bodies concatenated
//! (at most [`MAX_LOCAL_DOF`] numbers). The local Jacobian is a dense `rows × local_dof` matrix stored
//! row-major; its column slice for one body is Witkin's (constraint, body) block (Witkin 1997, §4.2).
//! Besides C and J each constraint provides the velocity-product term J̇v used at the acceleration
//! level (Witkin eq. 11). Driving constraints C(q, t) are written in the same form by taking time as
//! the coordinate of a clock body ([`drive`]).

use crate::model::BodyKind;

pub mod drive;
pub mod hinge_drive;
pub mod joint3;
pub mod pair;
pub mod registry;
pub mod spec;

registry! {
    /// Every constraint type, in `list` order.
    pub const CONSTRAINTS: &[registry::ConstraintEntry] = [
        circle,
        distance,
        pin,
        line,
        on_line,
        on_plane,
        ground,
        revolute,
        prismatic,
        ball,
        rigid_distance,
        hinge,
        slider,
        weld,
    ];
}

pub use ball::Ball;
pub use circle::Circle;
pub use distance::Distance;
pub(crate) use distance::{rod_error, rod_with_stiffness};
pub use ground::Ground;
pub use hinge::Hinge;
pub use joint3::JointFrame;
pub use line::Line;
pub use on_line::OnLine;
pub use on_plane::OnPlane;
pub use pair::{Frame2, Frame3, Motion2, Motion3, Pair2, Pair3, Side, Side3};
pub use pin::Pin;
pub use prismatic::Prismatic;
pub use revolute::Revolute;
pub use rigid_distance::RigidDistance;
pub use slider::Slider;
pub use weld::Weld;

/// Largest number of bodies one constraint touches (three: a relative drive's two bodies and the
/// clock).
pub const MAX_BODIES: usize = 3;
/// Largest number of local velocity coordinates (two rigid-3D bodies).
pub const MAX_LOCAL_DOF: usize = 12;
/// Largest number of local position coordinates (two rigid-3D bodies: 2 × 7).
pub const MAX_LOCAL_NQ: usize = 14;
/// Largest number of rows one constraint owns (a weld joint).
pub const MAX_ROWS: usize = 6;

/// A holonomic constraint between one or two bodies.
///
/// All slices are local: `q` and `v` are the concatenated position and velocity slices of
/// [`Constraint::bodies`] in order (`local_nq` and `local_dof` entries); `c` and `jdot_v` have
/// `rows()` entries; `j` has `rows() × local_dof` entries, row-major. J is the Jacobian with respect
/// to the velocities: Ċ = J(q) v (for rigid-3D bodies v holds the body-frame Ω, so J is not ∂C/∂q).
pub trait Constraint: Send + Sync + std::fmt::Debug {
    /// Registry name of the constraint type (e.g. `"distance"`).
    fn kind(&self) -> &'static str;
    /// Number of scalar equations (rows of C and J).
    fn rows(&self) -> usize;
    /// The bodies it is attached to.
    fn attach(&self) -> &Attach;
    /// Indices of the bodies it touches, in the order of the local coordinates.
    fn bodies(&self) -> &[usize] {
        self.attach().bodies()
    }
    /// The body kind it expects at each position of [`Constraint::bodies`].
    fn body_kinds(&self) -> &[BodyKind] {
        self.attach().kinds()
    }
    /// C(q): the constraint violation (units of each row stated in the constraint's docs).
    fn eval(&self, q: &[f64], c: &mut [f64]);
    /// Whether it is a driving constraint (a coordinate or a hinge's angle prescribed in time,
    /// through the clock): a driven mechanism's energy changes by the drives' work.
    fn driving(&self) -> bool {
        false
    }
    /// The unit of row `row` of C: `m` unless overridden (`rad`, `1` for the dimensionless
    /// orientation rows, `m²`); its multiplier's unit is energy over it (N, N m, N/m).
    fn row_unit(&self, _row: usize) -> &'static str {
        "m"
    }
    /// J(q) with Ċ = J v, row-major `rows × local_dof` (∂C/∂q wherever q̇ = v).
    fn jacobian(&self, q: &[f64], j: &mut [f64]);
    /// The velocity-product term J̇(q, v) v = d/ds [J(q ⊕ s v) v] at s = 0 (v held fixed).
    fn jdot_v(&self, q: &[f64], v: &[f64], out: &mut [f64]);
    /// C(q) and J(q) together (one pass for solvers that need both at every iterate); kernels whose
    /// C and J share work override it.
    fn eval_with_jacobian(&self, q: &[f64], c: &mut [f64], j: &mut [f64]) {
        self.eval(q, c);
        self.jacobian(q, j);
    }

    /// Number of rows g_k of its geometric-stiffness factor (see
    /// [`Constraint::geometric_stiffness`]); 0 when it provides none, and Newton solvers then use
    /// the Gauss–Newton matrix for it.
    fn stiffness_rows(&self) -> usize {
        0
    }
    /// The geometric stiffness K_g = −Σ_r λ_r ∇²C_r(q) (the second-order term Newton's method on
    /// M(q − q̃) = Jᵀλ, C(q) = 0 needs; Tournier et al. 2015, "Stable constrained dynamics", §4) as
    /// a sum of rank-one terms Σ_k s_k g_k g_kᵀ: the rows g_k into `g` (`stiffness_rows × local_dof`,
    /// row-major) and the weights s_k \[N/m for a length row\] into `s`. `lambda` holds the
    /// position-level multipliers of its rows (Macklin et al. 2016). Derivatives are taken in the
    /// chart δ ↦ q ⊕ δ of the local velocity coordinates.
    fn geometric_stiffness(&self, _q: &[f64], _lambda: &[f64], _g: &mut [f64], _s: &mut [f64]) {}
    /// C, J and the geometric-stiffness factor in one pass (XPBD's Newton step); kernels whose
    /// parts share work override it.
    fn eval_with_stiffness(
        &self,
        q: &[f64],
        lambda: &[f64],
        c: &mut [f64],
        j: &mut [f64],
        g: &mut [f64],
        s: &mut [f64],
    ) {
        self.eval_with_jacobian(q, c, j);
        if self.stiffness_rows() > 0 {
            self.geometric_stiffness(q, lambda, g, s);
        }
    }

    /// The constraint as a rod of fixed length between two particles (`distance` between two
    /// bodies): their dimension (2 or 3) and the length L \[m\]; `None` for every other. The
    /// system keeps runs of such rods as plain data for the passes of a Newton step (the same
    /// arithmetic as the object's: `rod_with_stiffness`, `rod_error`).
    fn particle_rod(&self) -> Option<(usize, f64)> {
        None
    }

    /// The constraint as a planar joint (two frames and the motion between them), for reduced
    /// coordinates; `None` when it is not one (rigid-3D joints, particles in space).
    fn planar_pair(&self) -> Option<Pair2> {
        None
    }
    /// The constraint as a joint in space (rigid-3D joints, particles in space), for reduced
    /// coordinates; `None` when it is not one.
    fn spatial_pair(&self) -> Option<Pair3> {
        None
    }

    /// Number of local velocity coordinates: the sum of the degrees of freedom of its bodies.
    fn local_dof(&self) -> usize {
        self.body_kinds().iter().map(|k| k.dof()).sum()
    }
    /// Number of local position coordinates: the sum of the bodies' q lengths.
    fn local_nq(&self) -> usize {
        self.body_kinds().iter().map(|k| k.nq()).sum()
    }
}

/// The bodies a constraint is attached to (one to three), stored inline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attach {
    index: [usize; MAX_BODIES],
    kind: [BodyKind; MAX_BODIES],
    count: usize,
}

impl Attach {
    /// Attached to one body.
    pub fn one(body: usize, kind: BodyKind) -> Self {
        Attach { index: [body; MAX_BODIES], kind: [kind; MAX_BODIES], count: 1 }
    }

    /// Attached to two bodies, in this order.
    pub fn two(a: usize, ka: BodyKind, b: usize, kb: BodyKind) -> Self {
        Attach { index: [a, b, b], kind: [ka, kb, kb], count: 2 }
    }

    /// Attached to three bodies, in this order (a relative drive: two bodies and the clock).
    pub fn three(a: usize, ka: BodyKind, b: usize, kb: BodyKind, c: usize, kc: BodyKind) -> Self {
        Attach { index: [a, b, c], kind: [ka, kb, kc], count: 3 }
    }

    /// The body indices.
    pub fn bodies(&self) -> &[usize] {
        &self.index[..self.count]
    }

    /// The body kinds.
    pub fn kinds(&self) -> &[BodyKind] {
        &self.kind[..self.count]
    }
}
