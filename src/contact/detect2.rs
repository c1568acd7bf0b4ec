//! Broad and narrow phase in the plane by parry's 2D build (f64): what [`super::detect`] does
//! in space, for shapes on rigid-2D bodies — circles, rectangles, capsules and convex polygons —
//! and lines (planes whose normal lies in the plane). Contacts come out with z = 0 and the same
//! conventions: the point midway between the two surface points, the normal from side a to b,
//! the signed distance, a key from the pair and parry's feature ids kept by proximity
//! (`persist`), the grid broad phase of [`super::broad`] with each pair's manifolds kept across
//! detections.

use super::broad::{Bounds, Grid};
use super::detect::{key, persist_by, sync_cache};
use super::{Contact, ContactSet, Shape};
use nalgebra::Vector3;
use parry2d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry2d_f64::math::{Pose, Vector};
use parry2d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry2d_f64::shape::{PolygonalFeature, SharedShape};

/// The 2D collision workspace of a planar contact set, reused across detections.
pub struct Detector {
    /// (body, shape).
    colliders: Vec<(usize, SharedShape)>,
    /// Whether each collider is a particle's point (q = (x, y), no angle).
    points: Vec<bool>,
    /// Each line: unit normal and offset.
    planes: Vec<(Vector, f64)>,
    poses: Vec<Pose>,
    aabbs: Vec<Aabb>,
    bounds: Vec<Bounds<2>>,
    grid: Grid,
    pairs: Vec<(u32, u32)>,
    cache: Vec<PairCache>,
    spare: Vec<PairCache>,
}

type Manifold = ContactManifold<(), ()>;

/// A close pair's cache: the pair, its manifolds, its last contacts (point in the first shape's
/// frame, key).
type PairCache = super::detect::Cached<Manifold, (Vector, u64)>;

/// The parry shape of a planar `shape` (a 2D capsule stands on its y axis, as parry's), or None
/// for a point set without a 2D hull or a shape in space.
fn collider(shape: &Shape) -> Option<SharedShape> {
    match shape {
        Shape::Circle { radius } => Some(SharedShape::ball(*radius)),
        Shape::Rectangle { half } => Some(SharedShape::cuboid(half[0], half[1])),
        Shape::Capsule2 { half_height, radius } => Some(SharedShape::capsule_y(*half_height, *radius)),
        Shape::Polygon { points } => {
            let pts: Vec<Vector> = points.iter().map(|p| Vector::new(p[0], p[1])).collect();
            SharedShape::convex_hull(&pts)
        }
        // A particle is a disk of radius 0 for the broad phase and the lines (as in space).
        Shape::Point2 => Some(SharedShape::ball(0.0)),
        _ => None,
    }
}

/// Whether the points span a solid polygon: parry computes a hull and its area is at least 10⁻⁹
/// of the square of the points' extent (collinear points give none, or a flat one).
pub(super) fn polygon_is_solid(points: &[[f64; 2]]) -> bool {
    let extent = (0..2)
        .map(|k| {
            let (lo, hi) =
                points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p[k]), h.max(p[k])));
            hi - lo
        })
        .fold(0.0, f64::max);
    collider(&Shape::Polygon { points: points.to_vec() })
        .is_some_and(|c| extent > 0.0 && c.mass_properties(1.0).mass() >= 1e-9 * extent * extent)
}

fn to_vec(v: Vector) -> Vector3<f64> {
    Vector3::new(v.x, v.y, 0.0)
}

impl Detector {
    /// The workspace of a planar `set` (checked by [`ContactSet::validate`] first).
    pub fn new(set: &ContactSet) -> Detector {
        let colliders = set
            .shapes
            .iter()
            .map(|(b, s)| (*b, collider(s).expect("a validated planar set has solid shapes")))
            .collect();
        let planes = set.planes.iter().map(|p| (Vector::new(p.normal[0], p.normal[1]), p.offset)).collect();
        Detector {
            colliders,
            points: set.shapes.iter().map(|(_, s)| s.is_point()).collect(),
            planes,
            poses: Vec::new(),
            aabbs: Vec::new(),
            bounds: Vec::new(),
            grid: Grid::default(),
            pairs: Vec::new(),
            cache: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// All contacts with separation ≤ the margin at configuration q (each body (x, y, θ) from its
    /// offset), into `out` (cleared first): shapes against lines, then pairs by index.
    pub fn detect(&mut self, set: &ContactSet, q_offsets: &[usize], q: &[f64], out: &mut Vec<Contact>) {
        out.clear();
        self.poses.clear();
        for ((body, _), &point) in self.colliders.iter().zip(&self.points) {
            let o = q_offsets[*body];
            self.poses.push(Pose::new(Vector::new(q[o], q[o + 1]), if point { 0.0 } else { q[o + 2] }));
        }
        let (margin, np) = (set.margin, set.planes.len());
        for (i, (body, shape)) in self.colliders.iter().enumerate() {
            for (k, &plane) in self.planes.iter().enumerate() {
                on_line(plane, shape, &self.poses[i], margin, (*body, k, np + i), out);
            }
        }
        self.broad_phase(margin);
        sync_cache(&self.pairs, &mut self.cache, &mut self.spare);
        for (&(i, j), (_, m, last)) in self.pairs.iter().zip(self.cache.iter_mut()) {
            let (i, j) = (i as usize, j as usize);
            let (pa, pb) = (&self.poses[i], &self.poses[j]);
            if self.points[i] || self.points[j] {
                let (shape, pose, p) = if self.points[i] {
                    (&self.colliders[j].1, pb, pa.translation)
                } else {
                    (&self.colliders[i].1, pa, pb.translation)
                };
                if let Some((n, surface, sep, feature)) = point_contact(shape, pose, p, margin) {
                    // The normal from side a (shape i) to b.
                    let n = if self.points[i] { -n } else { n };
                    out.push(Contact {
                        a: Some(self.colliders[i].0),
                        b: self.colliders[j].0,
                        point: to_vec(0.5 * (surface + p)),
                        normal: to_vec(n),
                        separation: sep,
                        key: key(np + i, np + j, 0, feature),
                    });
                }
                continue;
            }
            for x in m.iter_mut() {
                x.points.clear();
            }
            let (sa, sb) = (&self.colliders[i].1, &self.colliders[j].1);
            // Every pair of the shapes here is supported by the default dispatcher.
            let _ = DefaultQueryDispatcher.contact_manifolds(
                &pa.inv_mul(pb),
                sa.as_ref(),
                sb.as_ref(),
                margin,
                m,
                &mut None,
            );
            let first = out.len();
            for man in m.iter() {
                let normal = to_vec(pa.rotation * man.local_n1);
                for p in man.points.iter().filter(|p| p.dist <= margin) {
                    let point = 0.5 * (to_vec(pa.transform_point(p.local_p1)) + to_vec(pb.transform_point(p.local_p2)));
                    let k = key(np + i, np + j, p.fid1.0, p.fid2.0);
                    out.push(Contact {
                        a: Some(self.colliders[i].0),
                        b: self.colliders[j].0,
                        point,
                        normal,
                        separation: p.dist,
                        key: k,
                    });
                }
            }
            // Within the margin, or 10⁻³ of the first shape's size where the margin is 0.
            let size = (self.aabbs[i].maxs - self.aabbs[i].mins).length();
            let local = |c: &Contact| pa.inverse_transform_point(Vector::new(c.point.x, c.point.y));
            persist_by(local, |a: Vector, b: Vector| a.distance(b), margin.max(1e-3 * size), last, &mut out[first..]);
        }
    }

    /// The pairs (i < j) of shapes on different bodies, not both points, whose boxes, widened by
    /// half the margin each, overlap, sorted (the grid of [`super::broad`]).
    fn broad_phase(&mut self, margin: f64) {
        self.aabbs.clear();
        self.bounds.clear();
        for ((_, s), pose) in self.colliders.iter().zip(&self.poses) {
            let b = s.compute_aabb(pose).loosened(0.5 * margin);
            self.bounds.push(([b.mins.x, b.mins.y], [b.maxs.x, b.maxs.y]));
            self.aabbs.push(b);
        }
        let (colliders, points) = (&self.colliders, &self.points);
        let apart = |a: u32, b: u32| {
            let (a, b) = (a as usize, b as usize);
            colliders[a].0 != colliders[b].0 && !(points[a] && points[b])
        };
        self.grid.pairs(&self.bounds, apart, &mut self.pairs);
    }
}

/// The point contact of the 3D detector (`detect::point_contact`) in the plane: a particle's point `p` against `shape` at
/// `pose` — the outward normal (world), the projection on the surface, the signed distance and
/// the feature id, when the distance is at most `margin`.
fn point_contact(shape: &SharedShape, pose: &Pose, p: Vector, margin: f64) -> Option<(Vector, Vector, f64, u32)> {
    let local = pose.inverse_transform_point(p);
    let (proj, feature) = shape.project_local_point_and_get_feature(local);
    let d = local - proj.point;
    let len = d.length();
    let sign = if proj.is_inside { -1.0 } else { 1.0 };
    if sign * len > margin {
        return None;
    }
    let n = if len > 0.0 {
        sign * d / len
    } else if let Some(n) = shape.feature_normal_at_point(0, feature, proj.point).and_then(Vector::try_normalize) {
        n
    } else {
        let out = proj.point * (1.0 + 1e-9);
        (out - shape.project_local_point(out, false).point).try_normalize()?
    };
    let id = parry2d_f64::shape::PackedFeatureId::from(feature).0;
    Some((pose.rotation * n, pose.transform_point(proj.point), sign * len, id))
}

/// The contacts of a shape with a line (n, offset): the vertices of the shape's support feature
/// toward −n (an edge or a vertex, inflated by the rounding radius) within the margin; `ids`:
/// (body, line index, shape index), the key from the line, the shape and the feature.
fn on_line(
    plane: (Vector, f64),
    shape: &SharedShape,
    pose: &Pose,
    margin: f64,
    ids: (usize, usize, usize),
    out: &mut Vec<Contact>,
) {
    let (n, offset) = plane;
    let nw = to_vec(n);
    let mut add = |surface: Vector, feature: u32| {
        let sep = n.dot(surface) - offset;
        if sep <= margin {
            let point = to_vec(surface) - 0.5 * sep * nw;
            out.push(Contact {
                a: None,
                b: ids.0,
                point,
                normal: nw,
                separation: sep,
                key: key(ids.1, ids.2, 0, feature),
            });
        }
    };
    let local_n = pose.rotation.inverse() * n;
    if let Some((pfm, border)) = shape.as_polygonal_feature_map() {
        let mut f = PolygonalFeature::default();
        pfm.local_support_feature(-local_n, &mut f);
        for (v, id) in f.vertices.iter().zip(&f.vids).take(f.num_vertices) {
            add(pose.transform_point(*v - local_n * border), id.0);
        }
    } else if let Some(sm) = shape.as_support_map() {
        add(pose.transform_point(sm.local_support_point(-local_n)), 0);
    }
}
