//! Body kinds and their generalized coordinates.
//!
//! Each body owns a contiguous slice of the stacked position vector `q` and of the velocity
//! vector `v` (docs/design.md §1). For the planar kinds and particles q̇ = v; a rigid-3D body has a unit
//! quaternion in q (7 numbers) and its angular velocity Ω in the body frame in v (6 numbers), with
//! q̇ = G(q) v given by [`super::rotation::qdot`].
//!
//! | kind | `q` slice | `v` slice | mass-matrix diagonal |
//! |---|---|---|---|
//! | particle-2D | (x, y) \[m\] | (ẋ, ẏ) \[m/s\] | (m, m) |
//! | particle-3D | (x, y, z) \[m\] | (ẋ, ẏ, ż) \[m/s\] | (m, m, m) |
//! | rigid-2D | (x, y, θ) \[m, m, rad\] | (ẋ, ẏ, ω) \[m/s, m/s, rad/s\] | (m, m, I) |
//! | rigid-3D | (x, y, z \[m\], Q = (w, qx, qy, qz)) | (v \[m/s\], Ω \[rad/s\], body frame) | (m, m, m, I₁, I₂, I₃) |
//!
//! DEVIATION (rigid-3D): seed 001 writes the Newton–Euler equations with the world angular
//! velocity ω and the world inertia R I Rᵀ. Here Ω = Rᵀω is stored in the body frame, whose axes
//! are the principal axes, so M stays diagonal and constant and every formulation and solver keeps
//! using W = M⁻¹ as a vector. The equations are the same (Euler's equations I Ω̇ = τ − Ω × I Ω);
//! the gyroscopic term −Ω × I Ω is an applied force ([`super::Force::Gyroscopic`]), and the world
//! quantities (ω = R Ω, I_world = R I Rᵀ, L = R I Ω) are available from [`Body::world_inertia`].

use super::rotation;

/// The kind of a body, which fixes how many coordinates it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A point mass in the plane: q = (x, y).
    Particle2,
    /// A point mass in space: q = (x, y, z).
    Particle3,
    /// A planar rigid body: q = (x, y, θ) with (x, y) its centre of mass.
    Rigid2,
    /// A rigid body in space: q = (x, y, z, Q) with Q a unit quaternion, v = (ẋ, ẏ, ż, Ω) with Ω
    /// the angular velocity in the body (principal-axis) frame.
    Rigid3,
    /// The clock of a driven mechanism (docs/design.md §5.1): q = (s) \[s\], v = (ṡ) = (1); its
    /// mass and inverse mass are 0, so no force moves it and s = t to rounding. Model files add
    /// it when they have `drives:`; it has no position in space.
    Clock,
}

impl BodyKind {
    /// Number of velocity coordinates (degrees of freedom) the body owns: its length in v, M, J.
    pub const fn dof(self) -> usize {
        match self {
            BodyKind::Clock => 1,
            BodyKind::Particle2 => 2,
            BodyKind::Particle3 | BodyKind::Rigid2 => 3,
            BodyKind::Rigid3 => 6,
        }
    }

    /// Number of position coordinates the body owns: its length in q (7 for rigid-3D, else `dof`).
    pub const fn nq(self) -> usize {
        match self {
            BodyKind::Rigid3 => 7,
            k => k.dof(),
        }
    }

    /// Number of translational coordinates (the spatial dimension of its position).
    pub const fn dim(self) -> usize {
        match self {
            BodyKind::Particle2 | BodyKind::Rigid2 => 2,
            BodyKind::Particle3 | BodyKind::Rigid3 => 3,
            BodyKind::Clock => 0,
        }
    }

    /// q⁺ = q ⊕ h v for this body's slices (`q`, `out`: [`BodyKind::nq`]; `v`: [`BodyKind::dof`]):
    /// q + h v, or the exponential map for the orientation of a rigid-3D body.
    #[inline]
    pub fn retract(self, q: &[f64], v: &[f64], h: f64, out: &mut [f64]) {
        match self {
            BodyKind::Rigid3 => rotation::retract(q, v, h, out),
            _ => {
                for ((o, qi), vi) in out.iter_mut().zip(q).zip(v) {
                    *o = qi + h * vi;
                }
            }
        }
    }

    /// The constant velocity v with q1 = q0 ⊕ h v (the inverse of [`BodyKind::retract`]).
    #[inline]
    pub fn difference(self, q0: &[f64], q1: &[f64], h: f64, v: &mut [f64]) {
        match self {
            BodyKind::Rigid3 => rotation::difference(q0, q1, h, v),
            _ => {
                for ((vi, a), b) in v.iter_mut().zip(q0).zip(q1) {
                    *vi = (b - a) / h;
                }
            }
        }
    }

    /// q̇ = G(q) v for this body's slices (identity except for the quaternion of rigid-3D).
    #[inline]
    pub fn qdot(self, q: &[f64], v: &[f64], out: &mut [f64]) {
        match self {
            BodyKind::Rigid3 => rotation::qdot(q, v, out),
            _ => out.copy_from_slice(v),
        }
    }

    /// Short human-readable name used in listings and errors.
    pub const fn label(self) -> &'static str {
        match self {
            BodyKind::Particle2 => "particle-2D",
            BodyKind::Particle3 => "particle-3D",
            BodyKind::Rigid2 => "rigid-2D",
            BodyKind::Rigid3 => "rigid-3D",
            BodyKind::Clock => "clock",
        }
    }
}

/// A body: its kind and inertial parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// What coordinates the body owns.
    pub kind: BodyKind,
    /// Mass \[kg\]; must be positive and finite (0 for the clock only).
    pub mass: f64,
    /// Principal moments of inertia about the centre of mass (I₁, I₂, I₃) \[kg·m²\] in the body
    /// frame: all three for rigid-3D, I₃ (about z) for rigid-2D, unused for particles.
    pub inertia: [f64; 3],
}

impl Body {
    /// A planar point mass of `mass` \[kg\].
    pub fn particle2(mass: f64) -> Self {
        Body { kind: BodyKind::Particle2, mass, inertia: [0.0; 3] }
    }

    /// A spatial point mass of `mass` \[kg\].
    pub fn particle3(mass: f64) -> Self {
        Body { kind: BodyKind::Particle3, mass, inertia: [0.0; 3] }
    }

    /// A planar rigid body of `mass` \[kg\] and central moment of inertia `inertia` \[kg·m²\].
    pub fn rigid2(mass: f64, inertia: f64) -> Self {
        Body { kind: BodyKind::Rigid2, mass, inertia: [0.0, 0.0, inertia] }
    }

    /// A rigid body in space of `mass` \[kg\] and principal moments `inertia` \[kg·m²\].
    pub fn rigid3(mass: f64, inertia: [f64; 3]) -> Self {
        Body { kind: BodyKind::Rigid3, mass, inertia }
    }

    /// A uniform solid box of `mass` \[kg\] and edge lengths `size` \[m\] along the body axes:
    /// I₁ = m (b² + c²) / 12 and cyclically.
    pub fn cuboid(mass: f64, size: [f64; 3]) -> Self {
        let [a, b, c] = size.map(|x| x * x);
        Body::rigid3(mass, [mass * (b + c) / 12.0, mass * (a + c) / 12.0, mass * (a + b) / 12.0])
    }

    /// A uniform solid sphere of `mass` \[kg\] and `radius` \[m\]: I = 2 m r² / 5 about every axis.
    pub fn sphere(mass: f64, radius: f64) -> Self {
        let i = 0.4 * mass * radius * radius;
        Body::rigid3(mass, [i, i, i])
    }

    /// The world inertia tensor R I Rᵀ \[kg·m²\] of a rigid-3D body at orientation `quat`
    /// (w, x, y, z).
    pub fn world_inertia(&self, quat: &[f64]) -> nalgebra::Matrix3<f64> {
        let r = rotation::rotation_matrix(quat);
        r * nalgebra::Matrix3::from_diagonal(&nalgebra::Vector3::from(self.inertia)) * r.transpose()
    }

    /// The clock of a driven mechanism: no mass, no inertia ([`BodyKind::Clock`]).
    pub fn clock() -> Self {
        Body { kind: BodyKind::Clock, mass: 0.0, inertia: [0.0; 3] }
    }

    /// A uniform slender bar of `mass` \[kg\] and `length` \[m\] (I = m L² / 12).
    pub fn bar(mass: f64, length: f64) -> Self {
        Body::rigid2(mass, mass * length * length / 12.0)
    }

    /// The diagonal of this body's mass-matrix block, written into `out` (length `dof`).
    pub fn mass_diagonal(&self, out: &mut [f64]) {
        match self.kind {
            BodyKind::Particle2 | BodyKind::Particle3 => out.fill(self.mass),
            BodyKind::Rigid2 => {
                out[0] = self.mass;
                out[1] = self.mass;
                out[2] = self.inertia[2];
            }
            BodyKind::Rigid3 => {
                out[..3].fill(self.mass);
                out[3..6].copy_from_slice(&self.inertia);
            }
            BodyKind::Clock => out[0] = 0.0,
        }
    }
}
