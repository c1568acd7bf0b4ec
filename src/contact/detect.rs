//! Broad and narrow phase by parry (dimforge's collision library, f64 build): the contact
//! manifolds of every shape pair whose bounding boxes, widened by the margin, overlap (a
//! bounding-volume hierarchy over the shapes, rebuilt at each detection: not all pairs), and of
//! every shape against every plane (half-spaces have no bounding box; planes are few).
//!
//! A manifold's points come in the frame of its first shape: the point on each surface, the
//! normal from the first to the second, and the signed distance. The contact point is midway
//! between the two surface points, as in the rest of the contact code, and the key combines the
//! pair with the two features parry names (vertex, edge or face of each shape), so a contact
//! keeps its key — and its warm start — while the same features touch, or while its point stays
//! within the margin of where it was (`persist`). Two faces that coincide
//! (equal boxes stacked flush) give each corner twice, once per face's polygon: the second copy is
//! dropped (within 10⁻⁹ of the shapes' size), as it would only add a redundant row.
//!
//! The broad phase is a hashed uniform grid over the shapes' boxes, widened by the margin
//! ([`super::broad`]): its pair search is linear in the number of shapes at a fixed density. It
//! replaced sort and sweep along x (Baraff 1992), which met every box overlapping in x — N^1.47
//! from 10³ to 10⁴ scattered spheres. parry's bounding-volume hierarchy was the first choice, but it is rebuilt
//! with allocations at every detection, and a stepper must not allocate once warm
//! (`tests/no_alloc.rs`); the grid keeps its workspaces, and each pair's manifolds persist across
//! detections (parry updates them in place), so a resting scene allocates nothing.

use super::broad::{Bounds, Grid};
use super::{Contact, ContactSet, Shape};
use crate::model::rotation::vec3;
use nalgebra::Vector3;
use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::glamx::DQuat;
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d_f64::shape::{PolygonalFeature, SharedShape};

/// The collision workspace of a contact set: the parry shapes (a convex hull is computed once),
/// the manifold buffers and the broad phase's boxes, reused across detections.
pub struct Detector {
    /// (body, shape, the shape's pose in the body frame).
    colliders: Vec<(usize, SharedShape, Pose)>,
    /// Whether each collider is a particle's point (q = (x, y, z), no rotation).
    points: Vec<bool>,
    /// Each plane: unit normal and offset.
    planes: Vec<(Vector, f64)>,
    poses: Vec<Pose>,
    aabbs: Vec<Aabb>,
    /// The boxes as the broad phase reads them.
    bounds: Vec<Bounds<3>>,
    grid: Grid,
    pairs: Vec<(u32, u32)>,
    /// Each close pair (sorted): its manifolds, reused across detections, and its last contacts
    /// (the point in the first shape's frame, the key).
    cache: Vec<PairCache>,
    /// The cache's second buffer, for rebuilding it without moving entries one by one.
    spare: Vec<PairCache>,
}

type Manifold = ContactManifold<(), ()>;

/// A pair's contact at the last detection: its point in the first shape's frame and its key.
type Last = (Vector, u64);

/// A close pair's cache: the pair, its manifolds, its last contacts.
pub(super) type Cached<M, L> = ((u32, u32), Vec<M>, Vec<L>);
type PairCache = Cached<Manifold, Last>;

/// The parry shape of `shape` and its pose in the body frame (parry's cylinder stands on its y
/// axis; the model's on z), or None for a point set without a 3D hull or a shape in the plane.
fn collider(shape: &Shape) -> Option<(SharedShape, Pose)> {
    let identity = Pose::IDENTITY;
    Some(match shape {
        Shape::Sphere { radius } => (SharedShape::ball(*radius), identity),
        Shape::Cuboid { half } => (SharedShape::cuboid(half[0], half[1], half[2]), identity),
        Shape::Capsule { half_height, radius } => (SharedShape::capsule_z(*half_height, *radius), identity),
        Shape::Cylinder { half_height, radius } => (
            SharedShape::cylinder(*half_height, *radius),
            Pose::from_rotation(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2)),
        ),
        Shape::Convex { points } => {
            let pts: Vec<Vector> = points.iter().map(|p| Vector::new(p[0], p[1], p[2])).collect();
            (SharedShape::convex_hull(&pts)?, identity)
        }
        // A particle is a ball of radius 0 for the broad phase and the planes (its support
        // point is itself); against another shape its contact is `point_contact`'s.
        Shape::Point => (SharedShape::ball(0.0), identity),
        // Shapes in the plane are the 2D detector's.
        Shape::Circle { .. }
        | Shape::Rectangle { .. }
        | Shape::Capsule2 { .. }
        | Shape::Polygon { .. }
        | Shape::Point2 => return None,
    })
}

/// Whether the points span a solid hull: parry computes one and its volume is at least 10⁻⁹ of
/// the cube of the points' extent (coplanar points give a flat hull, or none).
pub(super) fn hull_is_solid(points: &[[f64; 3]]) -> bool {
    let extent = (0..3)
        .map(|k| {
            let (lo, hi) =
                points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p[k]), h.max(p[k])));
            hi - lo
        })
        .fold(0.0, f64::max);
    collider(&Shape::Convex { points: points.to_vec() })
        .is_some_and(|(c, _)| c.mass_properties(1.0).mass() >= 1e-9 * extent.powi(3) && extent > 0.0)
}

fn to_vec(v: Vector) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

/// A key from the pair's two indices and the two features (a 64-bit mix: equal inputs give equal
/// keys; distinct ones collide with probability 2⁻⁶⁴, which only mis-seeds a warm start).
pub(super) fn key(i: usize, j: usize, f1: u32, f2: u32) -> u64 {
    let mut h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (j as u64).rotate_left(21);
    h ^= (u64::from(f1) << 32) | u64::from(f2);
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

impl Detector {
    /// The workspace of `set` (every shape checked by [`ContactSet::validate`] first).
    pub fn new(set: &ContactSet) -> Detector {
        let colliders = set
            .shapes
            .iter()
            .map(|(b, s)| {
                let (c, p) = collider(s).expect("a validated contact set has solid hulls");
                (*b, c, p)
            })
            .collect();
        let planes =
            set.planes.iter().map(|p| (Vector::new(p.normal[0], p.normal[1], p.normal[2]), p.offset)).collect();
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

    /// All contacts with separation ≤ the margin at configuration q, into `out` (cleared first),
    /// in a fixed order: shapes against planes, then pairs by index.
    pub fn detect(&mut self, set: &ContactSet, q_offsets: &[usize], q: &[f64], out: &mut Vec<Contact>) {
        out.clear();
        self.place(q_offsets, q);
        let (margin, np) = (set.margin, set.planes.len());
        for (i, &(body, ref shape, _)) in self.colliders.iter().enumerate() {
            for (k, &plane) in self.planes.iter().enumerate() {
                on_plane(plane, shape, &self.poses[i], margin, (body, key_of(k, np + i)), out);
            }
        }
        self.broad_phase(margin);
        sync_cache(&self.pairs, &mut self.cache, &mut self.spare);
        for (&(i, j), (_, m, last)) in self.pairs.iter().zip(self.cache.iter_mut()) {
            let (i, j) = (i as usize, j as usize);
            let (ci, cj) = (&self.colliders[i], &self.colliders[j]);
            let first = out.len();
            if self.points[i] || self.points[j] {
                let (shape, pose, p) = if self.points[i] {
                    (&cj.1, &self.poses[j], self.poses[i].translation)
                } else {
                    (&ci.1, &self.poses[i], self.poses[j].translation)
                };
                if let Some((n, surface, sep, feature)) = point_contact(shape, pose, p, margin) {
                    // The normal from side a (shape i) to b.
                    let n = if self.points[i] { -n } else { n };
                    let point = to_vec(0.5 * (surface + p));
                    let key = key(np + i, np + j, 0, feature);
                    out.push(Contact { a: Some(ci.0), b: cj.0, point, normal: to_vec(n), separation: sep, key });
                }
            } else {
                manifolds((&ci.1, &self.poses[i]), (&cj.1, &self.poses[j]), margin, m);
                push(m, &self.poses[i], &self.poses[j], margin, (Some(ci.0), cj.0), (np + i, np + j), out);
            }
            // Within the margin, or 10⁻³ of the first shape's size where the margin is 0.
            let size = (self.aabbs[i].maxs - self.aabbs[i].mins).length();
            persist(&self.poses[i], margin.max(1e-3 * size), last, &mut out[first..]);
        }
    }

    /// Each shape's world pose from its body's position and quaternion (w, x, y, z); a point's
    /// from its particle's position alone.
    fn place(&mut self, q_offsets: &[usize], q: &[f64]) {
        self.poses.clear();
        for ((body, _, local), &point) in self.colliders.iter().zip(&self.points) {
            let o = q_offsets[*body];
            let x = vec3(&q[o..o + 3]);
            let r = if point {
                DQuat::IDENTITY
            } else {
                DQuat::from_xyzw(q[o + 4], q[o + 5], q[o + 6], q[o + 3]).normalize()
            };
            self.poses.push(Pose::from_parts(Vector::new(x[0], x[1], x[2]), r) * *local);
        }
    }

    /// The pairs (i < j) of shapes on different bodies, not both points, whose boxes, widened by
    /// half the margin each, overlap, sorted (the grid of [`super::broad`]).
    fn broad_phase(&mut self, margin: f64) {
        self.aabbs.clear();
        self.bounds.clear();
        for ((_, s, _), pose) in self.colliders.iter().zip(&self.poses) {
            let b = s.compute_aabb(pose).loosened(0.5 * margin);
            self.bounds.push(([b.mins.x, b.mins.y, b.mins.z], [b.maxs.x, b.maxs.y, b.maxs.z]));
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

/// The cache holds exactly the current pairs, in their order: entries of pairs still close kept
/// (their manifolds and contacts), entries of pairs no longer close dropped, new pairs given
/// empty manifolds and contacts (the only allocation, when a pair first comes close). A merge of
/// the two sorted lists through the second buffer `spare`: linear in the pairs. Shared by the 2D
/// detector.
pub(super) fn sync_cache<M, L>(pairs: &[(u32, u32)], cache: &mut Vec<Cached<M, L>>, spare: &mut Vec<Cached<M, L>>) {
    if cache.len() == pairs.len() && cache.iter().zip(pairs).all(|(c, p)| c.0 == *p) {
        return; // the same pairs as at the last detection
    }
    spare.clear();
    let mut old = cache.drain(..).peekable();
    for &p in pairs {
        while old.next_if(|c| c.0 < p).is_some() {}
        spare.push(old.next_if(|c| c.0 == p).unwrap_or_else(|| (p, Vec::new(), Vec::new())));
    }
    drop(old);
    std::mem::swap(cache, spare);
}

/// The contacts of a shape with a plane (n, offset): the vertices of the shape's support feature
/// toward −n (its deepest face, edge or vertex, by parry's polygonal feature map, inflated by the
/// shape's rounding radius) within the margin — what parry's half-space manifold computes,
/// without its copy of the previous points (an allocation per call); a shape without a feature
/// map gets its one deepest point (every shape here is a support map).
fn on_plane(
    plane: (Vector, f64),
    shape: &SharedShape,
    pose: &Pose,
    margin: f64,
    ids: (usize, impl Fn(u32) -> u64),
    out: &mut Vec<Contact>,
) {
    let (n, offset) = plane;
    let nw = to_vec(n);
    let mut add = |surface: Vector, feature: u32| {
        let sep = n.dot(surface) - offset;
        if sep <= margin {
            let point = to_vec(surface) - 0.5 * sep * nw;
            out.push(Contact { a: None, b: ids.0, point, normal: nw, separation: sep, key: (ids.1)(feature) });
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

/// The contact of a particle's point `p` (world) with `shape` at `pose`, when its signed distance
/// is at most `margin`: the shape's outward normal there (world), the point's projection on the
/// surface, the signed distance (negative inside) and parry's feature id. The normal is the
/// direction from the projection to the point; a point exactly on the surface takes the normal of
/// the feature it lies on, or, for a shape that names none (a capsule, a cylinder), the direction
/// from the projection of a point 10⁻⁹ of its distance from the centre outward — parry's ball
/// manifold would instead take the direction from the shape's centre, wrong on a flat face.
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
    let id = parry3d_f64::shape::PackedFeatureId::from(feature).0;
    Some((pose.rotation * n, pose.transform_point(proj.point), sign * len, id))
}

/// Contact persistence for a pair (as Bullet's persistent manifolds): a contact whose point, in
/// the first shape's frame, lies within `within` of one of the pair's last contacts takes that
/// contact's key (each old key at most once), so its warm start survives parry naming the point
/// by other features — which it does from step to step where two faces lie flush (clipping
/// points of nearly coincident edges). `last` becomes this detection's contacts.
fn persist(pose: &Pose, within: f64, last: &mut Vec<Last>, contacts: &mut [Contact]) {
    let local = |c: &Contact| pose.inverse_transform_point(Vector::new(c.point.x, c.point.y, c.point.z));
    persist_by(local, |a: Vector, b: Vector| a.distance(b), within, last, contacts);
}

/// [`persist`] with the frame change `local` and the distance `dist` of either build.
pub(super) fn persist_by<P: Copy>(
    local: impl Fn(&Contact) -> P,
    dist: impl Fn(P, P) -> f64,
    within: f64,
    last: &mut Vec<(P, u64)>,
    contacts: &mut [Contact],
) {
    for k in 0..contacts.len() {
        let p = local(&contacts[k]);
        let near = last
            .iter()
            .filter(|(q, key)| dist(*q, p) <= within && !contacts[..k].iter().any(|c| c.key == *key))
            .min_by(|a, b| dist(a.0, p).total_cmp(&dist(b.0, p)));
        if let Some(&(_, key)) = near {
            contacts[k].key = key;
        }
    }
    last.clear();
    last.extend(contacts.iter().map(|c| (local(c), c.key)));
}

/// The key function of the pair (i, j): feature → key.
fn key_of(i: usize, j: usize) -> impl Fn(u32) -> u64 {
    move |feature| key(i, j, 0, feature)
}

/// parry's manifolds of shape a against shape b (world poses), up to `margin`, updated in place:
/// each manifold's points are cleared first, so that parry's copy of them (kept to match contacts
/// across calls; the keys here do that) is empty and nothing is allocated once the manifolds have
/// their capacity.
fn manifolds(a: (&SharedShape, &Pose), b: (&SharedShape, &Pose), margin: f64, out: &mut Vec<Manifold>) {
    for m in out.iter_mut() {
        m.points.clear();
    }
    let pos12 = a.1.inv_mul(b.1);
    // Every pair of the shapes here is supported by the default dispatcher.
    let _ = DefaultQueryDispatcher.contact_manifolds(&pos12, a.0.as_ref(), b.0.as_ref(), margin, out, &mut None);
}

/// The manifolds' points with distance ≤ margin as contacts of sides `sides` (a, b), a point
/// that repeats one of its manifold's within 10⁻⁹ of the shapes' size left out.
fn push(
    manifolds: &[Manifold],
    pa: &Pose,
    pb: &Pose,
    margin: f64,
    sides: (Option<usize>, usize),
    ids: (usize, usize),
    out: &mut Vec<Contact>,
) {
    for m in manifolds {
        let normal = to_vec(pa.rotation * m.local_n1);
        let first = out.len();
        let size = m.points.iter().fold(0.0f64, |s, p| s.max(p.local_p1.length()).max(p.local_p2.length()));
        for p in m.points.iter().filter(|p| p.dist <= margin) {
            let (wa, wb) = (to_vec(pa.transform_point(p.local_p1)), to_vec(pb.transform_point(p.local_p2)));
            let point = 0.5 * (wa + wb);
            let k = key(ids.0, ids.1, p.fid1.0, p.fid2.0);
            if out[first..].iter().any(|c| (c.point - point).norm() <= 1e-9 * size) {
                continue;
            }
            out.push(Contact { a: sides.0, b: sides.1, point, normal, separation: p.dist, key: k });
        }
    }
}
