//! The relative motion a planar constraint allows: its joint map for reduced coordinates.
//!
//! A planar constraint that is a lower pair (revolute, prismatic, fixed) or a particle held at a
//! fixed distance from a point describes itself as two frames, one on each side, and the motion
//! between them (Featherstone 2008, §4.4 "joint models"):
//!   T_first · F_first · M(u) = T_second · F_second      (planar rigid transforms)
//! with T a body's pose (x, y, θ), F a frame fixed in the body (or the world), and M(u) the joint
//! motion of coordinate u. The `multibody` tree turns these into joint coordinates.

/// A frame fixed in a body (body frame) or in the world: its origin \[m\] and its angle \[rad\].
/// On a particle the frame must be the particle itself (origin 0, angle 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Frame2 {
    /// Origin \[m\].
    pub origin: [f64; 2],
    /// Angle of the frame's x axis \[rad\].
    pub angle: f64,
}

impl Frame2 {
    /// The frame at `origin` \[m\] with angle `angle` \[rad\].
    pub const fn new(origin: [f64; 2], angle: f64) -> Self {
        Frame2 { origin, angle }
    }

    /// The frame at the body's reference point (a particle's only frame).
    pub const ORIGIN: Frame2 = Frame2 { origin: [0.0, 0.0], angle: 0.0 };
}

/// The joint motion M(u) between the two frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion2 {
    /// Rotation by u \[rad\] about the common origin: M(u) = Rot(u).
    Revolute,
    /// A particle on a rod of this length \[m\] turning about the other side's origin:
    /// M(u) = Rot(u) · Trans(length, 0). The side carried by the rod must be a particle (its
    /// orientation is then the rod's).
    Arm(f64),
    /// Translation by u \[m\] along the frame's x axis: M(u) = Trans(u, 0).
    Prismatic,
    /// No relative motion: M = identity.
    Fixed,
}

impl Motion2 {
    /// Number of joint coordinates.
    pub const fn dof(self) -> usize {
        match self {
            Motion2::Fixed => 0,
            _ => 1,
        }
    }
}

/// One side of a pair: a body (or the world, `None`) and its joint frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    /// Body index, or `None` for the world.
    pub body: Option<usize>,
    /// The joint frame in the body's frame (world coordinates for the world).
    pub frame: Frame2,
}

/// A planar constraint as a joint: T_first F_first M(u) = T_second F_second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair2 {
    /// The side the motion starts from.
    pub first: Side,
    /// The side the motion ends at.
    pub second: Side,
    /// The motion between them.
    pub motion: Motion2,
}

impl Pair2 {
    /// A pair between a body side and the world side.
    pub fn world(world: Frame2, body: usize, frame: Frame2, motion: Motion2) -> Self {
        Pair2 { first: Side { body: None, frame: world }, second: Side { body: Some(body), frame }, motion }
    }
}

/// A frame fixed in a rigid-3D body (body frame) or in the world: the anchor \[m\] and the
/// orthonormal axes (columns; the first is a hinge's or slider's axis). On a particle the frame
/// is the particle itself with any axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame3 {
    /// Anchor \[m\].
    pub anchor: nalgebra::Vector3<f64>,
    /// Axes (columns).
    pub axes: nalgebra::Matrix3<f64>,
}

impl Frame3 {
    /// The frame of a particle: at the particle, world-aligned axes.
    pub fn particle() -> Self {
        Frame3 { anchor: nalgebra::Vector3::zeros(), axes: nalgebra::Matrix3::identity() }
    }
}

/// The joint motion M(u) between two 3D frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion3 {
    /// Rotation by u \[rad\] about the frame's first axis (hinge).
    Revolute,
    /// Translation by u \[m\] along the frame's first axis (slider, line).
    Prismatic,
    /// Any rotation about the common anchor (ball): a unit quaternion, three rates.
    Spherical,
    /// No relative motion (weld, pin).
    Fixed,
}

/// One side of a 3D pair: a body (or the world, `None`) and its joint frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side3 {
    /// Body index, or `None` for the world.
    pub body: Option<usize>,
    /// The joint frame in the body's frame (world coordinates for the world).
    pub frame: Frame3,
}

/// A 3D constraint as a joint: T_first F_first M(u) = T_second F_second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair3 {
    /// The side the motion starts from.
    pub first: Side3,
    /// The side the motion ends at.
    pub second: Side3,
    /// The motion between them.
    pub motion: Motion3,
}
