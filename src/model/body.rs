//! Body kinds and their generalized coordinates.
//!
//! Each body owns a contiguous slice of the stacked position vector `q` and of the velocity
//! vector `v` (DESIGN.md §1). For every kind here `q̇ = v`, so both slices have the same length.
//!
//! | kind | `q` slice | `v` slice | mass-matrix diagonal |
//! |---|---|---|---|
//! | particle-2D | (x, y) \[m\] | (ẋ, ẏ) \[m/s\] | (m, m) |
//! | particle-3D | (x, y, z) \[m\] | (ẋ, ẏ, ż) \[m/s\] | (m, m, m) |
//! | rigid-2D | (x, y, θ) \[m, m, rad\] | (ẋ, ẏ, ω) \[m/s, m/s, rad/s\] | (m, m, I) |

/// The kind of a body, which fixes how many coordinates it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A point mass in the plane: q = (x, y).
    Particle2,
    /// A point mass in space: q = (x, y, z).
    Particle3,
    /// A planar rigid body: q = (x, y, θ) with (x, y) its centre of mass.
    Rigid2,
}

impl BodyKind {
    /// Number of generalized coordinates (and velocities) the body owns.
    pub const fn dof(self) -> usize {
        match self {
            BodyKind::Particle2 => 2,
            BodyKind::Particle3 | BodyKind::Rigid2 => 3,
        }
    }

    /// Number of translational coordinates (the spatial dimension of its position).
    pub const fn dim(self) -> usize {
        match self {
            BodyKind::Particle2 | BodyKind::Rigid2 => 2,
            BodyKind::Particle3 => 3,
        }
    }

    /// Short human-readable name used in listings and errors.
    pub const fn label(self) -> &'static str {
        match self {
            BodyKind::Particle2 => "particle-2D",
            BodyKind::Particle3 => "particle-3D",
            BodyKind::Rigid2 => "rigid-2D",
        }
    }
}

/// A body: its kind and inertial parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// What coordinates the body owns.
    pub kind: BodyKind,
    /// Mass \[kg\]; must be positive and finite.
    pub mass: f64,
    /// Moment of inertia about the centre of mass \[kg·m²\]; used by rigid-2D bodies only.
    pub inertia: f64,
}

impl Body {
    /// A planar point mass of `mass` \[kg\].
    pub fn particle2(mass: f64) -> Self {
        Body { kind: BodyKind::Particle2, mass, inertia: 0.0 }
    }

    /// A spatial point mass of `mass` \[kg\].
    pub fn particle3(mass: f64) -> Self {
        Body { kind: BodyKind::Particle3, mass, inertia: 0.0 }
    }

    /// A planar rigid body of `mass` \[kg\] and central moment of inertia `inertia` \[kg·m²\].
    pub fn rigid2(mass: f64, inertia: f64) -> Self {
        Body { kind: BodyKind::Rigid2, mass, inertia }
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
                out[2] = self.inertia;
            }
        }
    }
}
