//! Tests of the narrow and broad phase.

use super::*;
use nalgebra::UnitQuaternion;

/// A contact set of `shapes` on unit rigid bodies (one per shape) over the ground z = 0.
fn set(shapes: Vec<Shape>, margin: f64) -> ContactSet {
    ContactSet {
        shapes: shapes.into_iter().enumerate().collect(),
        planes: vec![Plane { normal: [0.0, 0.0, 1.0], offset: 0.0 }],
        material: Material { friction: 0.5, restitution: 0.0, restitution_threshold: 1.0 },
        margin,
    }
}

/// q of bodies at positions `x` with orientations `r` (7 numbers each: x, y, z, w, qx, qy, qz).
fn poses(bodies: &[([f64; 3], UnitQuaternion<f64>)]) -> (Vec<usize>, Vec<f64>) {
    let mut q = Vec::new();
    for (x, r) in bodies {
        q.extend_from_slice(x);
        q.extend_from_slice(&[r.w, r.i, r.j, r.k]);
    }
    ((0..bodies.len()).map(|b| 7 * b).collect(), q)
}

fn detect(s: &ContactSet, bodies: &[([f64; 3], UnitQuaternion<f64>)]) -> Vec<Contact> {
    let (offsets, q) = poses(bodies);
    let mut out = Vec::new();
    Detector::new(s).detect(s, &offsets, &q, &mut out);
    out
}

/// Each shape resting 1 mm into the ground: its support feature's vertices, each 1 mm deep (to
/// rounding), normal +z: a sphere 1 point, a box 4, a capsule lying on its side 2, a cylinder
/// on its end parry's polygon of the rim, a tetrahedron on a face 3.
#[test]
fn every_shape_on_a_plane_touches_with_its_support_feature() {
    let flat = UnitQuaternion::identity();
    let side = UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0);
    let tet = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for (shape, z, r, points) in [
        (Shape::Sphere { radius: 0.3 }, 0.299, flat, 1..=1),
        (Shape::Cuboid { half: [0.2, 0.3, 0.4] }, 0.399, flat, 4..=4),
        (Shape::Capsule { half_height: 0.5, radius: 0.1 }, 0.099, side, 2..=2),
        (Shape::Cylinder { half_height: 0.5, radius: 0.1 }, 0.499, flat, 3..=8),
        (Shape::Convex { points: tet }, -0.001, flat, 3..=3),
    ] {
        let s = set(vec![shape.clone()], 0.01);
        let found = detect(&s, &[([0.3, -0.2, z], r)]);
        assert!(points.contains(&found.len()), "{shape:?}: {} contacts", found.len());
        for c in &found {
            assert!((c.separation + 0.001).abs() <= 1e-12, "{shape:?}: {}", c.separation);
            assert!((c.normal - Vector3::z()).norm() <= 1e-15 && c.a.is_none() && c.b == 0);
            assert!((c.point.z - 0.5 * c.separation).abs() <= 1e-12, "{shape:?}: midway {:?}", c.point);
        }
    }
}

/// Two cubes whose edges cross: the lower one on its edge along x, the upper one on its edge
/// along y, a gap g between the edges. No corner of either is near the other's faces, so a
/// vertex–face test finds nothing; the edge–edge contact is one point at the crossing, separation
/// g, normal along z.
#[test]
fn crossing_edges_give_one_edge_edge_contact() {
    let (h, g) = (0.1, 0.004);
    let d = h * std::f64::consts::SQRT_2;
    let lower = UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_4, 0.0, 0.0);
    let upper = UnitQuaternion::from_euler_angles(0.0, std::f64::consts::FRAC_PI_4, 0.0);
    let mut s = set(vec![Shape::Cuboid { half: [h; 3] }, Shape::Cuboid { half: [h; 3] }], 0.01);
    s.planes.clear();
    let found = detect(&s, &[([0.0, 0.0, 0.0], lower), ([0.0, 0.0, 2.0 * d + g], upper)]);
    assert_eq!(found.len(), 1, "{found:?}");
    let c = found[0];
    assert_eq!((c.a, c.b), (Some(0), 1));
    assert!((c.separation - g).abs() <= 1e-12, "{}", c.separation);
    assert!((c.normal - Vector3::z()).norm() <= 1e-12, "{:?}", c.normal);
    assert!((c.point - Vector3::new(0.0, 0.0, d + 0.5 * g)).norm() <= 1e-12, "{:?}", c.point);
}

/// Two equal boxes stacked flush: each corner of the shared face once (parry's clipping gives it
/// once per face polygon), so 4 contacts, not 8 redundant ones.
#[test]
fn flush_faces_give_each_corner_once() {
    let id = UnitQuaternion::identity();
    let s = set(vec![Shape::Cuboid { half: [0.1; 3] }, Shape::Cuboid { half: [0.1; 3] }], 0.01);
    let found = detect(&s, &[([0.0, 0.0, 0.1], id), ([0.0, 0.0, 0.3], id)]);
    let pair: Vec<_> = found.iter().filter(|c| c.a == Some(0)).collect();
    assert_eq!((found.len(), pair.len()), (8, 4), "{found:?}");
}

/// The broad phase misses no pair: 300 spheres of random radii in a box (a fixed seed), the
/// contacts found against every pair tested directly, |x_i − x_j| − r_i − r_j ≤ margin — the
/// same pairs with the same separations (to rounding), in pair order.
#[test]
fn sort_and_sweep_finds_exactly_the_close_pairs() {
    let mut state = 0x853c_49e6_748f_ea9bu64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 300;
    let radii: Vec<f64> = (0..n).map(|_| 0.02 + 0.08 * uniform()).collect();
    let bodies: Vec<_> =
        (0..n).map(|_| ([uniform(), uniform(), 2.0 + uniform()], UnitQuaternion::identity())).collect();
    let s = set(radii.iter().map(|&radius| Shape::Sphere { radius }).collect(), 0.01);
    let found = detect(&s, &bodies);
    let mut expected = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let d = (Vector3::from(bodies[i].0) - Vector3::from(bodies[j].0)).norm() - radii[i] - radii[j];
            if d <= s.margin {
                expected.push((i, j, d));
            }
        }
    }
    assert!(expected.len() > 50, "{} pairs: the test needs many", expected.len());
    assert_eq!(found.len(), expected.len());
    for (c, (i, j, d)) in found.iter().zip(&expected) {
        assert_eq!((c.a, c.b), (Some(*i), *j));
        assert!((c.separation - d).abs() <= 1e-12, "{i}, {j}: {} vs {d}", c.separation);
    }
}

/// `models/tumbling_boxes.yaml`: a bar dropped edge-first across a block (its edge's ends off the
/// block's face) and a cube dropped corner-first onto a slab tip over and come to rest lying on
/// their bases, centres at z = 0.3 m, to within pgs's allowed penetration (`slop`, 1 mm) plus
/// the Baumgarte residue; the deepest penetration over the run, after the drop, stays within the
/// speculative margin (1 cm). The vertex–face detection this replaced let the bar sink through
/// the block to the ground (z = 0.100 at rest).
#[test]
fn tumbling_boxes_come_to_rest_on_their_bases() {
    use crate::experiment::{CellSpec, run};
    use crate::integrator::Control;
    use crate::params::Scalar;
    let text = include_str!("../../models/tumbling_boxes.yaml");
    let model = crate::scene::model_file::from_text("models/tumbling_boxes.yaml", text).unwrap();
    let params = [("cone", Scalar::Bool(true)), ("iterations", Scalar::Num(200.0))];
    let spec = CellSpec::named("pgs", &params, "gauss_seidel", &[], None, Control::Fixed { h: 1.0 / 120.0 }, 3.0)
        .unwrap()
        .sampled(0.05)
        .recording();
    let r = run(&model.scene, &spec);
    assert_eq!(r.summary.status.label(), "ok", "{:?}", r.summary.status);
    let o = model.scene.system.q_offsets();
    let last = &r.samples.last().unwrap().q;
    for body in [1, 3] {
        let z = last[o[body] + 2];
        assert!((z - 0.3).abs() <= 1.5e-3, "body {body} rests at z = {z}");
    }
    assert!(r.summary.max_drift_position <= 0.01, "penetration {}", r.summary.max_drift_position);
}

/// A resting contact keeps its key while its point stays put: two boxes stacked flush (1e-12
/// into each other, so that a margin of 0 still sees them), then
/// turned and moved by 1e-10 (the jitter of a resting stack, where parry names the clipped corners
/// by other features at each call), detected again by the same detector — the same four keys;
/// moved by 5 cm along x, the two corners that stay keep theirs and the two that move 5 cm (more
/// than the margin) get new ones. Warm starting depends on it (`seed001_warm_start`).
#[test]
fn resting_contacts_keep_their_keys_through_jitter() {
    // Margin 0 (a model file's default): persistence then works within 1e-3 of the box size.
    let s = set(vec![Shape::Cuboid { half: [0.1; 3] }, Shape::Cuboid { half: [0.1; 3] }], 0.0);
    let (offsets, mut q) = poses(&[([0.0, 0.0, 0.1], UnitQuaternion::identity()); 2]);
    q[7 + 2] = 0.3 - 1e-12;
    let mut det = Detector::new(&s);
    let mut out = Vec::new();
    let keys = |det: &mut Detector, q: &[f64], out: &mut Vec<Contact>| {
        det.detect(&s, &offsets, q, out);
        let mut k: Vec<u64> = out.iter().filter(|c| c.a == Some(0)).map(|c| c.key).collect();
        k.sort_unstable();
        k
    };
    let before = keys(&mut det, &q, &mut out);
    assert_eq!(before.len(), 4);
    for step in 0..20 {
        let e = 1e-10 * (step as f64 * 1.7).sin();
        let r = UnitQuaternion::from_euler_angles(e, -e, 0.5 * e);
        q[7..10].copy_from_slice(&[e, -e, 0.3 - e.abs() - 1e-12]);
        q[10..14].copy_from_slice(&[r.w, r.i, r.j, r.k]);
        assert_eq!(keys(&mut det, &q, &mut out), before, "step {step}");
    }
    q[7..14].copy_from_slice(&[0.05, 0.0, 0.3 - 1e-12, 1.0, 0.0, 0.0, 0.0]);
    let moved = keys(&mut det, &q, &mut out);
    assert_eq!((moved.len(), moved.iter().filter(|k| before.contains(k)).count()), (4, 2), "{moved:?}");
}

/// A planar set of `shapes` (one rigid-2D body each) over the ground line y = 0.
fn set2(shapes: Vec<Shape>, margin: f64) -> ContactSet {
    let mut s = set(shapes, margin);
    s.planes = vec![Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }];
    s
}

/// Contacts of a planar set with bodies at (x, y, θ).
fn detect2(s: &ContactSet, bodies: &[[f64; 3]]) -> Vec<Contact> {
    let q: Vec<f64> = bodies.iter().flatten().copied().collect();
    let mut out = Vec::new();
    Detector::new(s).detect(s, &(0..bodies.len()).map(|b| 3 * b).collect::<Vec<_>>(), &q, &mut out);
    out
}

/// In the plane, each shape resting 1 mm into the ground line: a circle 1 point, a rectangle 2
/// (its bottom edge's ends), a capsule lying on its side 2, a triangle standing on a vertex 1 —
/// each 1 mm deep, normal +y, the point midway, z = 0.
#[test]
fn every_planar_shape_on_a_line_touches_with_its_support_feature() {
    let half_pi = std::f64::consts::FRAC_PI_2;
    let triangle = vec![[0.0, -0.2], [0.3, 0.2], [-0.3, 0.2]];
    for (shape, y, angle, points) in [
        (Shape::Circle { radius: 0.3 }, 0.299, 0.0, 1),
        (Shape::Rectangle { half: [0.2, 0.4] }, 0.399, 0.0, 2),
        (Shape::Capsule2 { half_height: 0.5, radius: 0.1 }, 0.099, half_pi, 2),
        (Shape::Polygon { points: triangle }, 0.199, 0.0, 1),
    ] {
        let s = set2(vec![shape.clone()], 0.01);
        let found = detect2(&s, &[[0.3, y, angle]]);
        assert_eq!(found.len(), points, "{shape:?}: {found:?}");
        for c in &found {
            assert!((c.separation + 0.001).abs() <= 1e-12, "{shape:?}: {}", c.separation);
            assert!((c.normal - Vector3::y()).norm() <= 1e-15 && c.a.is_none() && c.b == 0);
            assert!((c.point.y - 0.5 * c.separation).abs() <= 1e-12 && c.point.z == 0.0, "{shape:?}: {:?}", c.point);
        }
    }
}

/// Two squares in the plane, the upper one shifted by half a side and 2 mm above: its bottom
/// edge over the lower one's top edge gives the two ends of their overlap, separation 2 mm,
/// normal +y; a square turned 45° over a square gives its one vertex. Beyond the margin: none.
#[test]
fn planar_pairs_give_their_manifolds() {
    let mut s = set2(vec![Shape::Rectangle { half: [0.1, 0.1] }, Shape::Rectangle { half: [0.1, 0.1] }], 0.01);
    s.planes.clear();
    let found = detect2(&s, &[[0.0, 0.0, 0.0], [0.1, 0.202, 0.0]]);
    let mut xs: Vec<f64> = found.iter().map(|c| c.point.x).collect();
    xs.sort_by(f64::total_cmp);
    assert_eq!(xs.len(), 2, "{found:?}");
    assert!((xs[0] - 0.0).abs() <= 1e-12 && (xs[1] - 0.1).abs() <= 1e-12, "{xs:?}");
    for c in &found {
        assert!((c.separation - 0.002).abs() <= 1e-12 && (c.normal - Vector3::y()).norm() <= 1e-12, "{c:?}");
        assert_eq!((c.a, c.b), (Some(0), 1));
    }
    let d = 0.1 * std::f64::consts::SQRT_2;
    let vertex = detect2(&s, &[[0.0, 0.0, 0.0], [0.03, 0.1 + d + 0.002, std::f64::consts::FRAC_PI_4]]);
    assert_eq!(vertex.len(), 1, "{vertex:?}");
    assert!((vertex[0].separation - 0.002).abs() <= 1e-12 && (vertex[0].point.x - 0.03).abs() <= 1e-12);
    assert!(detect2(&s, &[[0.0, 0.0, 0.0], [0.1, 0.211, 0.0]]).is_empty());
}

/// The planar broad phase finds what all pairs find: 300 circles of 5 cm scattered in a 1.5 m square (a
/// fixed sequence), the contacts of the detector against every pair's distance test.
#[test]
fn planar_broad_phase_misses_no_pair() {
    let n = 300;
    let r = 0.05;
    let s = {
        let mut s = set2(vec![Shape::Circle { radius: r }; n], 0.01);
        s.planes.clear();
        s
    };
    let bodies: Vec<[f64; 3]> =
        (0..n).map(|k| [1.5 * (k as f64 * 0.618_034).fract(), 1.5 * (k as f64 * 0.414_214).fract(), 0.0]).collect();
    let found = detect2(&s, &bodies);
    let mut expected = 0;
    for i in 0..n {
        for j in i + 1..n {
            let d = (bodies[i][0] - bodies[j][0]).hypot(bodies[i][1] - bodies[j][1]) - 2.0 * r;
            expected += usize::from(d <= 0.01);
        }
    }
    assert!(expected > 10, "the scatter has close pairs: {expected}");
    assert_eq!(found.len(), expected);
}

/// A model file's planar contact: shapes on rigid2 bodies, lines with two-number normals; a
/// planar shape among shapes in space, or a shape in space on a rigid2 body, is refused.
#[test]
fn a_planar_set_validates_and_a_mixed_one_does_not() {
    let bodies = vec![Body::rigid2(1.0, 0.1), Body::rigid2(1.0, 0.1)];
    let s = set2(vec![Shape::Circle { radius: 0.1 }, Shape::Rectangle { half: [0.1, 0.2] }], 0.0);
    assert!(s.planar() && s.validate(&bodies).is_ok());
    let mixed = set2(vec![Shape::Circle { radius: 0.1 }, Shape::Sphere { radius: 0.1 }], 0.0);
    assert!(matches!(mixed.validate(&bodies), Err(ModelError::BadShape { index: 1 })));
    let mut tilted = s.clone();
    tilted.planes[0].normal = [0.0, 0.6, 0.8];
    assert!(matches!(tilted.validate(&bodies), Err(ModelError::BadPlane { .. })));
    let space = set(vec![Shape::Sphere { radius: 0.1 }], 0.0);
    assert!(matches!(space.validate(&bodies), Err(ModelError::KindMismatch { .. })));
}

/// A particle's point on a body's shape: exactly on a face it takes the face's normal (parry's
/// ball manifold would take the direction from the shape's centre), also on a shape whose faces
/// parry does not name (a cylinder's end); 1 mm inside, separation −1 mm and the outward normal;
/// it touches the plane; two points do not touch each other.
#[test]
fn a_particle_touches_shapes_and_planes_as_a_point() {
    let cases = [
        (Shape::Cuboid { half: [0.5, 0.5, 0.1] }, 0.1),
        (Shape::Cylinder { half_height: 0.1, radius: 0.5 }, 0.1),
        (Shape::Cuboid { half: [0.5, 0.5, 0.1] }, 0.099),
    ];
    for (shape, z) in cases {
        let s =
            ContactSet { shapes: vec![(0, shape.clone()), (1, Shape::Point), (2, Shape::Point)], ..set(vec![], 0.01) };
        // The box at the origin; the points at (−0.3, 0.2, z) and there again; q of the points
        // is 3 numbers each.
        let mut q = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        q.extend_from_slice(&[-0.3, 0.2, z, -0.3, 0.2, z]);
        let mut found = Vec::new();
        Detector::new(&s).detect(&s, &[0, 7, 10], &q, &mut found);
        let on_shape: Vec<_> = found.iter().filter(|c| c.a.is_some()).collect();
        assert_eq!(on_shape.len(), 2, "{shape:?}: {found:?}");
        for c in on_shape {
            assert_eq!(c.a, Some(0), "{shape:?}");
            assert!((c.normal - Vector3::z()).norm() <= 1e-12, "{shape:?}: normal {:?}", c.normal);
            assert!((c.separation - (z - 0.1)).abs() <= 1e-15, "{shape:?}: {}", c.separation);
        }
        // The points are 0.1 m above the ground, beyond the margin: only the shape touches it.
        assert!(found.iter().all(|c| c.a.is_some() || c.b == 0), "{found:?}");
    }
    // In the plane: a point exactly on a rectangle's top edge, and one resting on the line.
    let s = ContactSet {
        shapes: vec![(0, Shape::Rectangle { half: [0.5, 0.1] }), (1, Shape::Point2), (2, Shape::Point2)],
        planes: vec![Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }],
        ..set(vec![], 0.01)
    };
    let q = [0.0, 0.1, 0.0, -0.3, 0.2, 2.0, 0.0];
    let mut found = Vec::new();
    Detector::new(&s).detect(&s, &[0, 3, 5], &q, &mut found);
    let on_line = found.iter().filter(|c| c.a.is_none() && c.b == 2).count();
    let on_box: Vec<_> = found.iter().filter(|c| c.a == Some(0) && c.b == 1).collect();
    assert_eq!((on_line, on_box.len()), (1, 1), "{found:?}");
    assert!((on_box[0].normal - Vector3::y()).norm() <= 1e-12 && on_box[0].separation.abs() <= 1e-15, "{found:?}");
}
