//! Contact with Coulomb friction (seed 001): the shapes bodies carry, static world planes, the
//! contact material, and the narrow phase that turns a configuration into contact points.
//!
//! A contact joins side a (a body, or the world for planes) and body b at a world point with unit
//! normal n pointing from a to b and separation φ = (p_b − p_a)·n (negative = penetration, seed
//! 001's C = (p₂ − p₁)·n ≥ 0). Detection is parry's ([`Detector`]): contact manifolds of every
//! shape against every plane, and of the shape pairs a bounding-volume hierarchy finds close —
//! spheres, boxes (face, edge–edge and vertex contacts), capsules, cylinders and convex hulls.

mod detect;

pub use detect::Detector;

use crate::model::BodyKind;
use crate::model::{Body, ModelError};
use nalgebra::Vector3;

/// The collision shape of a rigid-3D body, centred at its centre of mass, in its body frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A sphere of the given radius \[m\].
    Sphere {
        /// Radius \[m\].
        radius: f64,
    },
    /// A box with the given half extents along the body axes \[m\].
    Cuboid {
        /// Half extents \[m\].
        half: [f64; 3],
    },
    /// A capsule: the points within `radius` of the segment from −`half_height` to
    /// `half_height` on the body's z axis \[m\].
    Capsule {
        /// Half the length of its axis segment \[m\].
        half_height: f64,
        /// Radius \[m\].
        radius: f64,
    },
    /// A solid cylinder on the body's z axis, from −`half_height` to `half_height` \[m\].
    Cylinder {
        /// Half its height \[m\].
        half_height: f64,
        /// Radius \[m\].
        radius: f64,
    },
    /// The convex hull of points given in the body frame \[m\].
    Convex {
        /// The points (at least four, not coplanar).
        points: Vec<[f64; 3]>,
    },
}

impl Shape {
    /// Whether the shape is solid: sizes positive and finite, a hull with volume.
    pub fn is_solid(&self) -> bool {
        let pos = |x: f64| x > 0.0 && x.is_finite();
        match self {
            Shape::Sphere { radius } => pos(*radius),
            Shape::Cuboid { half } => half.iter().all(|h| pos(*h)),
            Shape::Capsule { half_height, radius } | Shape::Cylinder { half_height, radius } => {
                pos(*half_height) && pos(*radius)
            }
            Shape::Convex { points } => {
                points.len() >= 4 && points.iter().flatten().all(|x| x.is_finite()) && detect::hull_is_solid(points)
            }
        }
    }
}

/// A static half-space bounded by the plane n·p = offset; solid on the side −n.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// Unit outward normal.
    pub normal: [f64; 3],
    /// Offset \[m\] along the normal.
    pub offset: f64,
}

/// The contact material shared by every pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Coulomb friction coefficient μ (|λ_t| ≤ μ λ_n per tangent direction).
    pub friction: f64,
    /// Restitution coefficient e in \[0, 1\].
    pub restitution: f64,
    /// Approach speed \[m/s\] below which no restitution is applied (resting contact).
    pub restitution_threshold: f64,
}

/// One contact point at the current configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Side a: a body, or None for the world.
    pub a: Option<usize>,
    /// Body b.
    pub b: usize,
    /// World contact point \[m\].
    pub point: Vector3<f64>,
    /// Unit normal from a to b.
    pub normal: Vector3<f64>,
    /// Separation φ \[m\] (negative = penetration).
    pub separation: f64,
    /// Identifies the same contact feature across steps (for warm starting).
    pub key: u64,
}

/// Shapes, planes and material of a scene with contact.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactSet {
    /// (body, shape) pairs.
    pub shapes: Vec<(usize, Shape)>,
    /// Static planes.
    pub planes: Vec<Plane>,
    /// Material of every contact.
    pub material: Material,
    /// Contacts are reported up to this separation \[m\] (speculative margin).
    pub margin: f64,
}

impl ContactSet {
    /// Checks that every shape sits on a rigid-3D body of `bodies` and is solid
    /// ([`Shape::is_solid`]), and that every plane normal is a unit vector (to 1e-12).
    pub fn validate(&self, bodies: &[Body]) -> Result<(), ModelError> {
        for (index, p) in self.planes.iter().enumerate() {
            let norm = p.normal.iter().map(|x| x * x).sum::<f64>().sqrt();
            if !((norm - 1.0).abs() <= 1e-12) {
                return Err(ModelError::BadPlane { index, normal: p.normal });
            }
        }
        for (index, (body, shape)) in self.shapes.iter().enumerate() {
            let body = *body;
            if !shape.is_solid() {
                return Err(ModelError::BadShape { index });
            }
            let count = bodies.len();
            let Some(b) = bodies.get(body) else {
                return Err(ModelError::UnknownBody { owner: "contact shape".into(), body, count });
            };
            if b.kind != BodyKind::Rigid3 {
                return Err(ModelError::KindMismatch {
                    owner: "contact shape".into(),
                    body,
                    expected: BodyKind::Rigid3.label(),
                    found: b.kind.label(),
                });
            }
        }
        Ok(())
    }

    /// All contacts with separation ≤ margin at configuration q (`q_offsets`: each body's first
    /// position coordinate), into `out` (cleared first), through a [`Detector`] made for this
    /// call: a stepper keeps its own instead, made once per run.
    pub fn detect(&self, q_offsets: &[usize], q: &[f64], out: &mut Vec<Contact>) {
        Detector::new(self).detect(self, q_offsets, q, out);
    }
}

#[cfg(test)]
mod tests;
