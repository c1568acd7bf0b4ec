//! Contact with Coulomb friction (seed 001): the shapes bodies carry, static world planes, the
//! contact material, and the narrow phase that turns a configuration into contact points.
//!
//! A contact joins side a (a body, or the world for planes) and body b at a world point with unit
//! normal n pointing from a to b and separation φ = (p_b − p_a)·n (negative = penetration, seed
//! 001's C = (p₂ − p₁)·n ≥ 0). Detection is parry's ([`Detector`]): contact manifolds of every
//! shape against every plane, and of the shape pairs a bounding-volume hierarchy finds close —
//! spheres, boxes (face, edge–edge and vertex contacts), capsules, cylinders and convex hulls.
//! In the plane (rigid-2D bodies, parry's 2D build): circles, rectangles, capsules and convex
//! polygons against each other and against lines (`planes` with a normal in the plane). A
//! particle collides as a point ([`Shape::Point`], [`Shape::Point2`]) with the planes and the
//! other bodies' shapes, by parry's point projection.

mod broad;
mod detect;
mod detect2;

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
    /// In the plane (a rigid-2D body): a disk of the given radius \[m\].
    Circle {
        /// Radius \[m\].
        radius: f64,
    },
    /// In the plane: a rectangle with the given half extents along the body's x and y axes \[m\].
    Rectangle {
        /// Half extents \[m\].
        half: [f64; 2],
    },
    /// In the plane: the points within `radius` of the segment from −`half_height` to
    /// `half_height` on the body's y axis \[m\].
    Capsule2 {
        /// Half the length of its axis segment \[m\].
        half_height: f64,
        /// Radius \[m\].
        radius: f64,
    },
    /// In the plane: the convex hull of points given in the body frame \[m\].
    Polygon {
        /// The points (at least three, not collinear).
        points: Vec<[f64; 2]>,
    },
    /// A particle in space as a point: it touches the planes and the other bodies' shapes, not
    /// other points.
    Point,
    /// A particle in the plane as a point ([`Shape::Point`] in the plane).
    Point2,
}

impl Shape {
    /// Whether the shape is solid: sizes positive and finite, a hull with volume (a point, which
    /// has no size, is accepted).
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
            Shape::Circle { radius } => pos(*radius),
            Shape::Rectangle { half } => half.iter().all(|h| pos(*h)),
            Shape::Capsule2 { half_height, radius } => pos(*half_height) && pos(*radius),
            Shape::Polygon { points } => {
                points.len() >= 3 && points.iter().flatten().all(|x| x.is_finite()) && detect2::polygon_is_solid(points)
            }
            Shape::Point | Shape::Point2 => true,
        }
    }

    /// Whether the shape lies in the plane (it sits on a rigid-2D body or a particle in the
    /// plane).
    pub fn planar(&self) -> bool {
        matches!(
            self,
            Shape::Circle { .. }
                | Shape::Rectangle { .. }
                | Shape::Capsule2 { .. }
                | Shape::Polygon { .. }
                | Shape::Point2
        )
    }

    /// Whether the shape is a particle's point ([`Shape::Point`], [`Shape::Point2`]).
    pub fn is_point(&self) -> bool {
        matches!(self, Shape::Point | Shape::Point2)
    }

    /// The body kind the shape sits on.
    pub fn body_kind(&self) -> BodyKind {
        match (self.is_point(), self.planar()) {
            (true, true) => BodyKind::Particle2,
            (true, false) => BodyKind::Particle3,
            (false, true) => BodyKind::Rigid2,
            (false, false) => BodyKind::Rigid3,
        }
    }
}

/// The collision workspace of a contact set, made once per run: parry's 3D build for shapes on
/// rigid-3D bodies, its 2D build for shapes in the plane.
pub enum Detector {
    /// Bodies in space.
    Space(detect::Detector),
    /// Bodies in the plane.
    Plane(detect2::Detector),
}

impl Detector {
    /// The workspace of `set` (checked by [`ContactSet::validate`] first).
    pub fn new(set: &ContactSet) -> Detector {
        if set.planar() {
            Detector::Plane(detect2::Detector::new(set))
        } else {
            Detector::Space(detect::Detector::new(set))
        }
    }

    /// All contacts with separation ≤ the margin at configuration q, into `out` (cleared first),
    /// in a fixed order: shapes against planes, then pairs by index.
    pub fn detect(&mut self, set: &ContactSet, q_offsets: &[usize], q: &[f64], out: &mut Vec<Contact>) {
        match self {
            Detector::Space(d) => d.detect(set, q_offsets, q, out),
            Detector::Plane(d) => d.detect(set, q_offsets, q, out),
        }
    }
}

/// A static half-space bounded by the plane n·p = offset; solid on the side −n. In a planar set
/// (rigid-2D bodies) the normal lies in the plane (n_z = 0) and the plane is a line.
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
    /// Whether the set lies in the plane: its shapes are planar ([`Shape::planar`]).
    pub fn planar(&self) -> bool {
        self.shapes.first().is_some_and(|(_, s)| s.planar())
    }

    /// Checks that every shape sits on a body of `bodies` of its kind ([`Shape::body_kind`]; all in
    /// space or all in the plane) and is solid ([`Shape::is_solid`]), and that every plane
    /// normal is a unit vector (to 1e-12), in the plane for a planar set.
    pub fn validate(&self, bodies: &[Body]) -> Result<(), ModelError> {
        for (index, p) in self.planes.iter().enumerate() {
            let norm = p.normal.iter().map(|x| x * x).sum::<f64>().sqrt();
            if !((norm - 1.0).abs() <= 1e-12) || (self.planar() && p.normal[2] != 0.0) {
                return Err(ModelError::BadPlane { index, normal: p.normal });
            }
        }
        for (index, (body, shape)) in self.shapes.iter().enumerate() {
            let body = *body;
            if !shape.is_solid() || shape.planar() != self.planar() {
                return Err(ModelError::BadShape { index });
            }
            let count = bodies.len();
            let Some(b) = bodies.get(body) else {
                return Err(ModelError::UnknownBody { owner: "contact shape".into(), body, count });
            };
            let kind = shape.body_kind();
            if b.kind != kind {
                return Err(ModelError::KindMismatch {
                    owner: "contact shape".into(),
                    body,
                    expected: kind.label(),
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
