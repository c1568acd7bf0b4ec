//! Narrow phase: contact points of every shape pair (all pairs; scenes here are small).

use super::{Contact, ContactSet, Shape};
use crate::model::rotation::{rotation_matrix, vec3};
use nalgebra::{Matrix3, Vector3};

struct Placed {
    body: usize,
    shape: Shape,
    x: Vector3<f64>,
    r: Matrix3<f64>,
}

fn key(a: usize, b: usize, feature: usize) -> u64 {
    ((a as u64) << 40) | ((b as u64) << 16) | feature as u64
}

fn corners(half: [f64; 3]) -> impl Iterator<Item = Vector3<f64>> {
    (0..8).map(move |k| {
        let s = |bit: usize| if k & (1 << bit) == 0 { -1.0 } else { 1.0 };
        Vector3::new(s(0) * half[0], s(1) * half[1], s(2) * half[2])
    })
}

pub(super) fn all_pairs(set: &ContactSet, q_offsets: &[usize], q: &[f64], out: &mut Vec<Contact>) {
    let placed = |&(body, shape): &(usize, Shape)| {
        let o = q_offsets[body];
        Placed { body, shape, x: vec3(&q[o..o + 3]), r: rotation_matrix(&q[o + 3..o + 7]) }
    };
    for (i, si) in set.shapes.iter().enumerate() {
        let a = placed(si);
        for (pi, plane) in set.planes.iter().enumerate() {
            let n = vec3(&plane.normal);
            let mut add = |k: usize, p: Vector3<f64>, sep: f64| {
                if sep <= set.margin {
                    // Point midway between the body's surface point and the plane.
                    let point = p - 0.5 * sep * n;
                    out.push(Contact { a: None, b: a.body, point, normal: n, separation: sep, key: key(pi, i, k) });
                }
            };
            match a.shape {
                Shape::Sphere { radius } => add(0, a.x - radius * n, n.dot(&a.x) - radius - plane.offset),
                Shape::Cuboid { half } => {
                    for (k, c) in corners(half).enumerate() {
                        let p = a.x + a.r * c;
                        add(k, p, n.dot(&p) - plane.offset);
                    }
                }
            }
        }
        for (j, sj) in set.shapes.iter().enumerate().skip(i + 1) {
            let b = placed(sj);
            pair(set.margin, &a, &b, (set.planes.len() + i, j), out);
        }
    }
}

fn pair(margin: f64, a: &Placed, b: &Placed, ids: (usize, usize), out: &mut Vec<Contact>) {
    match (a.shape, b.shape) {
        (Shape::Sphere { radius: ra }, Shape::Sphere { radius: rb }) => {
            let d = b.x - a.x;
            let dist = d.norm();
            let sep = dist - ra - rb;
            if sep <= margin && dist > 0.0 {
                let n = d / dist;
                let point = a.x + (ra + 0.5 * sep) * n;
                out.push(Contact {
                    a: Some(a.body),
                    b: b.body,
                    point,
                    normal: n,
                    separation: sep,
                    key: key(ids.0, ids.1, 0),
                });
            }
        }
        (Shape::Cuboid { half: ha }, Shape::Cuboid { half: hb }) => {
            vertex_face(margin, a, ha, b, hb, false, ids, out);
            vertex_face(margin, b, hb, a, ha, true, ids, out);
        }
        // Mixed sphere–box pairs are not needed by the scenes and are not detected.
        _ => {}
    }
}

/// Corners of box `v` (half extents hv) against the face of box `f` (half extents hf) that faces
/// v's centre: the axis d of f's frame with the largest |c_d| / hf_d, c = v's centre in f's frame
/// (a fixed choice per pair, so equal boxes stacked edge on edge get the top face, not a side).
/// `swapped` says v is the pair's side a; the normal of the contact points from its a to its b.
#[allow(clippy::too_many_arguments)]
fn vertex_face(
    margin: f64,
    v: &Placed,
    hv: [f64; 3],
    f: &Placed,
    hf: [f64; 3],
    swapped: bool,
    ids: (usize, usize),
    out: &mut Vec<Contact>,
) {
    let c = f.r.transpose() * (v.x - f.x);
    let axis = (0..3).fold(0, |best, d| if c[d].abs() / hf[d] > c[best].abs() / hf[best] { d } else { best });
    let sign = if c[axis] >= 0.0 { 1.0 } else { -1.0 };
    let n_f = f.r.column(axis) * sign; // outward normal of the face of f
    for (k, corner) in corners(hv).enumerate() {
        let p = v.x + v.r * corner;
        let local = f.r.transpose() * (p - f.x);
        let sep = sign * local[axis] - hf[axis];
        let lateral = (0..3).filter(|&d| d != axis).all(|d| local[d].abs() <= hf[d] + margin);
        if !lateral || sep > margin || sep < -2.0 * hf[axis] {
            continue;
        }
        let point = p - 0.5 * sep * n_f;
        let (a, b, normal) = if swapped { (v.body, f.body, -n_f) } else { (f.body, v.body, n_f) };
        let feature = 16 + k + if swapped { 8 } else { 0 };
        out.push(Contact { a: Some(a), b, point, normal, separation: sep, key: key(ids.0, ids.1, feature) });
    }
}
