//! Pictures of mechanisms: a model at its assembled initial state as SVG (written directly: lines,
//! circles, text) and PNG (rasterised with the embedded font), for `tinkertoy draw`.
//!
//! Each body is drawn through the points where something acts on it (joint anchors, spring ends)
//! and its centre of mass: a thick bar when those points are collinear, else the outline of their
//! convex hull; a particle is a dot. Joints are small rings labelled with their type, world anchors
//! carry a ground hatch, springs are zigzags; names and joint types are written up to 30 of each. Bodies in space are projected on the x–y plane (the
//! title says so).

use crate::model::{BodyKind, BodyPoint, End, Force};
use crate::scene::model_file::Model;
use std::fmt::Write;
use std::path::Path;

/// The picture's size \[px\].
const WIDTH: f64 = 900.0;
/// Margin around the mechanism \[px\].
const MARGIN: f64 = 60.0;

/// Bodies and joints are labelled up to this many (beyond, labels would cover the picture).
const LABELLED: usize = 30;

/// Body colours (the report's palette order).
const COLOURS: [&str; 8] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

fn world(model: &Model, q: &[f64], body: Option<usize>, local: [f64; 3]) -> [f64; 2] {
    match body {
        Some(b) => {
            let s = &model.scene.system;
            let (kind, o) = (s.bodies()[b].kind, s.q_offsets()[b]);
            let p = BodyPoint { body: b, local }.world(kind, &q[o..o + kind.nq()]);
            [p[0], p[1]]
        }
        None => [local[0], local[1]],
    }
}

/// Convex hull (Andrew's monotone chain), counter-clockwise, without repeated points.
fn hull(mut p: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup_by(|a, b| (a[0] - b[0]).hypot(a[1] - b[1]) < 1e-12);
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut h: Vec<[f64; 2]> = Vec::new();
    for pass in 0..2 {
        let start = h.len();
        let pts: Vec<[f64; 2]> = if pass == 0 { p.clone() } else { p.iter().rev().copied().collect() };
        for x in pts {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], x) <= 0.0 {
                h.pop();
            }
            h.push(x);
        }
        h.pop();
    }
    h
}

/// The SVG picture of `model` at its assembled initial state.
pub fn mechanism_svg(model: &Model) -> String {
    let scene = &model.scene;
    let system = &scene.system;
    let q = &scene.q0;
    let n = system.bodies().len();
    // The points of each body: its centre of mass, its joint anchors and spring ends.
    let mut points: Vec<Vec<[f64; 2]>> = (0..n).map(|b| vec![world(model, q, Some(b), [0.0; 3])]).collect();
    let mut ground: Vec<[f64; 2]> = Vec::new();
    let mut rings: Vec<([f64; 2], &str)> = Vec::new();
    for j in &model.joints {
        for (body, local) in &j.anchors {
            let p = world(model, q, *body, *local);
            match body {
                Some(b) => points[*b].push(p),
                None => ground.push(p),
            }
            rings.push((p, &j.kind));
        }
    }
    let mut springs: Vec<([f64; 2], [f64; 2])> = Vec::new();
    for f in system.forces() {
        if let Force::SpringDamper { a, b, .. } = f {
            let pa = world(model, q, Some(a.body), a.local);
            points[a.body].push(pa);
            let pb = match b {
                End::Body(b) => {
                    let p = world(model, q, Some(b.body), b.local);
                    points[b.body].push(p);
                    p
                }
                End::World(x) => {
                    let p = [x[0], x[1]];
                    ground.push(p);
                    p
                }
            };
            springs.push((pa, pb));
        }
    }
    // World → pixels: the bounding box fitted into WIDTH, y up.
    let all = points.iter().flatten().chain(&ground);
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in all {
        for d in 0..2 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    let span = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-9);
    let scale = (WIDTH - 2.0 * MARGIN) / span;
    let height = ((hi[1] - lo[1]) * scale + 2.0 * MARGIN + 40.0).max(200.0);
    let px = |p: [f64; 2]| [MARGIN + (p[0] - lo[0]) * scale, height - MARGIN - (p[1] - lo[1]) * scale];
    let unit = span / 50.0 * scale; // a fiftieth of the mechanism, in pixels

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let spatial = system.bodies().iter().any(|b| b.kind.dim() == 3);
    let title = format!(
        "{} at t = 0 (assembled){}; {} bodies, {} joints",
        escape(&scene.name),
        if spatial { ", projected on the x-y plane" } else { "" },
        n,
        model.joints.len(),
    );
    let _ = writeln!(svg, r#"<text x="{MARGIN}" y="28" font-size="16">{title}</text>"#);
    // Scale bar: the round length (1, 2 or 5 × 10^k m) nearest a fifth of the mechanism.
    let target = span / 5.0;
    let decade = 10f64.powf(target.log10().floor());
    let bar = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * decade)
        .min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()))
        .unwrap_or(decade);
    let (bx, by) = (WIDTH - MARGIN - bar * scale, 28.0);
    let _ = writeln!(
        svg,
        r#"<line x1="{bx:.1}" y1="{by}" x2="{:.1}" y2="{by}" stroke="black" stroke-width="2"/>"#,
        bx + bar * scale
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{}" font-size="12" text-anchor="middle">{} m</text>"#,
        bx + bar * scale / 2.0,
        by - 6.0,
        crate::params::fmt_num(bar)
    );
    // Ground anchors: a short hatched bar under each.
    for g in &ground {
        let [x, y] = px(*g);
        let w = unit.max(6.0);
        let _ = writeln!(
            svg,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#444" stroke-width="2"/>"##,
            x - w,
            y + w * 0.6,
            x + w,
            y + w * 0.6
        );
        for k in 0..4 {
            let x0 = x - w + k as f64 * w * 0.6;
            let _ = writeln!(
                svg,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#444" stroke-width="1"/>"##,
                x0 + w * 0.4,
                y + w * 0.6,
                x0,
                y + w * 1.1
            );
        }
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{y:.1}" x2="{x:.1}" y2="{:.1}" stroke="#444" stroke-width="2"/>"##,
            y + w * 0.6
        );
    }
    // Springs: a zigzag of 12 teeth.
    for (a, b) in &springs {
        let (pa, pb) = (px(*a), px(*b));
        let (dx, dy) = (pb[0] - pa[0], pb[1] - pa[1]);
        let len = dx.hypot(dy).max(1e-9);
        let (nx, ny) = (-dy / len, dx / len);
        let amp = unit.clamp(3.0, 12.0);
        let mut path = format!("M {:.1} {:.1}", pa[0], pa[1]);
        for k in 1..24 {
            let t = k as f64 / 24.0;
            let s = if k % 2 == 0 { -amp } else { amp };
            let _ = write!(path, " L {:.1} {:.1}", pa[0] + t * dx + s * nx, pa[1] + t * dy + s * ny);
        }
        let _ = write!(path, " L {:.1} {:.1}", pb[0], pb[1]);
        let _ = writeln!(svg, r##"<path d="{path}" fill="none" stroke="#555" stroke-width="1.5"/>"##);
    }
    // Bodies.
    for (b, pts) in points.iter().enumerate() {
        let colour = COLOURS[b % COLOURS.len()];
        let kind = system.bodies()[b].kind;
        let h = hull(pts.clone());
        if matches!(kind, BodyKind::Particle2 | BodyKind::Particle3) || h.len() == 1 {
            let [x, y] = px(pts[0]);
            let _ = writeln!(
                svg,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{colour}"/>"#,
                (unit * 0.8).clamp(4.0, 12.0)
            );
        } else {
            let d: Vec<String> = h.iter().map(|p| px(*p)).map(|[x, y]| format!("{x:.1},{y:.1}")).collect();
            let w = (unit * 0.6).clamp(3.0, 10.0);
            let _ = writeln!(
                svg,
                r#"<polygon points="{}" fill="{colour}" fill-opacity="0.25" stroke="{colour}" stroke-width="{w:.1}" stroke-linejoin="round"/>"#,
                d.join(" ")
            );
        }
        let [x, y] = px(pts[0]);
        let _ = writeln!(svg, r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="black"/>"#);
        if n <= LABELLED {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="13" fill="{colour}">{}</text>"#,
                x + 6.0,
                y - 6.0,
                escape(&model.body_names[b])
            );
        }
    }
    // Joints: rings, each type labelled once per place.
    let mut labelled: Vec<[f64; 2]> = Vec::new();
    for (p, kind) in &rings {
        let [x, y] = px(*p);
        let _ =
            writeln!(svg, r##"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="white" stroke="#222" stroke-width="1.5"/>"##);
        if model.joints.len() <= LABELLED && !labelled.iter().any(|l| (l[0] - x).hypot(l[1] - y) < 8.0) {
            labelled.push([x, y]);
            let _ = writeln!(
                svg,
                r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#222">{}</text>"##,
                x + 8.0,
                y + 16.0,
                escape(kind)
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// Text safe inside SVG.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Writes `<stem>.svg` and `<stem>.png` of `model`.
pub fn draw(model: &Model, stem: &Path) -> Result<(), String> {
    let svg = mechanism_svg(model);
    std::fs::write(stem.with_extension("svg"), &svg).map_err(|e| crate::experiment::config::io_reason(&e))?;
    super::plot::rasterise(&svg, &stem.with_extension("png")).map_err(|e| e.to_string())
}
