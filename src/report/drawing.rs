//! Pictures of mechanisms: a model at its assembled initial state as SVG (written directly: lines,
//! circles, text) and PNG (rasterised with the embedded font), for `tinkertoy draw`.
//!
//! Each body is drawn through the points where something acts on it (joint anchors, spring ends)
//! and its centre of mass: a thick bar when those points are collinear, else the outline of their
//! convex hull; a particle is a dot. Joints are small rings labelled with their type, world anchors
//! carry a ground hatch, springs are zigzags; names and joint types are written up to 30 of each. Mechanisms in space are drawn in cabinet
//! projection (x and y true to scale, z receding at 45° down-left at half length; the title says
//! so), so that a body along z is a line rather than a point.

use crate::model::{BodyKind, BodyPoint, End, Force};
use crate::scene::model_file::Model;
use std::fmt::Write;
use std::path::Path;

pub(crate) use super::animation::{tracks_from_report, write_apng};

/// The picture's size \[px\].
const WIDTH: f64 = 900.0;
/// Margin around the mechanism \[px\].
const MARGIN: f64 = 60.0;

/// Bodies and joints are labelled up to this many (beyond, labels would cover the picture).
const LABELLED: usize = 30;

/// Body colours (the report's palette order).
const COLOURS: [&str; 8] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

/// The picture's axes as world axis indices: (across, up, receding). Up is the axis gravity acts
/// along (y when there is no gravity, and always in the plane); across is the first other one.
fn view_axes(model: &Model) -> [usize; 3] {
    let up = model
        .scene
        .system
        .forces()
        .iter()
        .find_map(|f| match f {
            Force::Gravity { g } if g[2].abs() > g[0].abs().max(g[1].abs()) => Some(2),
            Force::Gravity { g } if g[0].abs() > g[1].abs().max(g[2].abs()) => Some(0),
            _ => None,
        })
        .unwrap_or(1);
    match up {
        0 => [1, 0, 2],
        2 => [0, 2, 1],
        _ => [0, 1, 2],
    }
}

/// Cabinet projection of a world point onto the picture plane \[m\]: the across and up axes
/// kept, the receding one drawn at 45° at half length (planar mechanisms have z = 0 and are drawn
/// as they are).
fn project(p: [f64; 3], axes: [usize; 3]) -> [f64; 2] {
    let k = 0.5 * std::f64::consts::FRAC_1_SQRT_2;
    [p[axes[0]] - k * p[axes[2]], p[axes[1]] - k * p[axes[2]]]
}

/// A body point (or a world point, body `None`) at `q`, projected with `axes` ([`view_axes`]).
fn world(model: &Model, q: &[f64], axes: [usize; 3], body: Option<usize>, local: [f64; 3]) -> [f64; 2] {
    match body {
        Some(b) => {
            let s = &model.scene.system;
            let (kind, o) = (s.bodies()[b].kind, s.q_offsets()[b]);
            project(BodyPoint { body: b, local }.world(kind, &q[o..o + kind.nq()]), axes)
        }
        None => project(local, axes),
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

/// What is drawn of a mechanism at one state: each body's points (its centre of mass first),
/// the world anchors, the joint rings with their types, the springs' ends.
struct Geometry<'m> {
    bodies: Vec<Vec<[f64; 2]>>,
    ground: Vec<[f64; 2]>,
    rings: Vec<([f64; 2], &'m str)>,
    springs: Vec<([f64; 2], [f64; 2])>,
    /// Rods of distance joints, between their two anchors.
    rods: Vec<([f64; 2], [f64; 2])>,
    /// Contact planes: a point and a direction of their trace in the picture.
    planes: Vec<([f64; 2], [f64; 2])>,
}

fn geometry<'m>(model: &'m Model, q: &[f64]) -> Geometry<'m> {
    let system = &model.scene.system;
    let n = system.bodies().len();
    let axes = view_axes(model);
    let mut g = Geometry {
        // The clock of a driven model has no place in space: nothing is drawn of it.
        bodies: (0..n)
            .map(|b| match system.bodies()[b].kind {
                BodyKind::Clock => Vec::new(),
                _ => vec![world(model, q, axes, Some(b), [0.0; 3])],
            })
            .collect(),
        ground: Vec::new(),
        rings: Vec::new(),
        springs: Vec::new(),
        rods: Vec::new(),
        planes: Vec::new(),
    };
    for j in &model.joints {
        let mut ends = Vec::new();
        for (body, local) in &j.anchors {
            let p = world(model, q, axes, *body, *local);
            match body {
                Some(b) => g.bodies[*b].push(p),
                None => g.ground.push(p),
            }
            g.rings.push((p, &j.kind));
            ends.push(p);
        }
        if matches!(j.kind.as_str(), "distance" | "rigid_distance") && ends.len() == 2 {
            g.rods.push((ends[0], ends[1]));
        }
    }
    add_contacts(&mut g, model, q, axes);
    add_springs(&mut g, model, q, axes);
    g
}

/// The world box (lower, upper corner) holding every point of `geometries`.
fn bounds<'a>(geometries: impl Iterator<Item = &'a Geometry<'a>>) -> ([f64; 2], [f64; 2]) {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for g in geometries {
        // A contact plane's foot (its point nearest the origin) is kept in the picture.
        for p in g.bodies.iter().flatten().chain(&g.ground).chain(g.planes.iter().map(|(f, _)| f)) {
            for d in 0..2 {
                lo[d] = lo[d].min(p[d]);
                hi[d] = hi[d].max(p[d]);
            }
        }
    }
    (lo, hi)
}

/// A panel: the world box `(lo, hi)` fitted into `width` px at horizontal offset `x0`, y up.
struct Panel {
    lo: [f64; 2],
    scale: f64,
    x0: f64,
    height: f64,
    unit: f64,
}

impl Panel {
    fn new((lo, hi): ([f64; 2], [f64; 2]), width: f64, x0: f64) -> Self {
        let span = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-9);
        let scale = (width - 2.0 * MARGIN) / span;
        let height = ((hi[1] - lo[1]) * scale + 2.0 * MARGIN + 40.0).max(200.0);
        Panel { lo, scale, x0, height, unit: span / 50.0 * scale }
    }

    fn px(&self, p: [f64; 2]) -> [f64; 2] {
        [self.x0 + MARGIN + (p[0] - self.lo[0]) * self.scale, self.height - MARGIN - (p[1] - self.lo[1]) * self.scale]
    }
}

/// SVG elements drawing `g` in `panel`.
fn draw_geometry(svg: &mut String, model: &Model, g: &Geometry, panel: &Panel) {
    draw_ground(svg, &g.ground, panel);
    draw_springs(svg, &g.springs, panel);
    // Contact planes: a long grey line along their trace (the picture clips it).
    for (foot, d) in &g.planes {
        let reach = 1e3 * (panel.height + WIDTH) / panel.scale.max(1e-12);
        let (a, b) = (
            panel.px([foot[0] - reach * d[0], foot[1] - reach * d[1]]),
            panel.px([foot[0] + reach * d[0], foot[1] + reach * d[1]]),
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#888" stroke-width="3"/>"##,
            a[0], a[1], b[0], b[1]
        );
    }
    // Rods of distance joints: a thin line.
    for (a, b) in &g.rods {
        let (pa, pb) = (panel.px(*a), panel.px(*b));
        let _ = writeln!(
            svg,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#555" stroke-width="2"/>"##,
            pa[0], pa[1], pb[0], pb[1]
        );
    }
    draw_bodies(svg, model, g, panel);
    draw_rings(svg, model, g, panel);
}

/// Contact shapes: a sphere or a circle as its outline in the picture plane (a capsule as its two
/// end circles'), a box by its eight corners (a rectangle its four), a cylinder by its two end
/// circles, a convex hull or polygon by its points (the body's hull then outlines each), a
/// particle's point as the particle; planes by their trace.
fn add_contacts(g: &mut Geometry, model: &Model, q: &[f64], axes: [usize; 3]) {
    let system = &model.scene.system;
    if let Some(set) = system.contacts() {
        for (b, shape) in &set.shapes {
            match shape {
                crate::contact::Shape::Sphere { radius } | crate::contact::Shape::Circle { radius } => {
                    let c = g.bodies[*b][0];
                    g.bodies[*b].extend((0..24).map(|k| {
                        let a = k as f64 * std::f64::consts::TAU / 24.0;
                        [c[0] + radius * a.cos(), c[1] + radius * a.sin()]
                    }));
                }
                crate::contact::Shape::Cuboid { half } => {
                    for k in 0..8 {
                        let s = |i: usize| if k >> i & 1 == 1 { half[i] } else { -half[i] };
                        let p = world(model, q, axes, Some(*b), [s(0), s(1), s(2)]);
                        g.bodies[*b].push(p);
                    }
                }
                crate::contact::Shape::Capsule { half_height, radius } => {
                    for z in [-half_height, *half_height] {
                        let c = world(model, q, axes, Some(*b), [0.0, 0.0, z]);
                        g.bodies[*b].extend((0..24).map(|k| {
                            let a = k as f64 * std::f64::consts::TAU / 24.0;
                            [c[0] + radius * a.cos(), c[1] + radius * a.sin()]
                        }));
                    }
                }
                crate::contact::Shape::Cylinder { half_height, radius } => {
                    for z in [-half_height, *half_height] {
                        for k in 0..24 {
                            let a = k as f64 * std::f64::consts::TAU / 24.0;
                            let p = world(model, q, axes, Some(*b), [radius * a.cos(), radius * a.sin(), z]);
                            g.bodies[*b].push(p);
                        }
                    }
                }
                crate::contact::Shape::Convex { points } => {
                    for &p in points {
                        let w = world(model, q, axes, Some(*b), p);
                        g.bodies[*b].push(w);
                    }
                }
                crate::contact::Shape::Rectangle { half } => {
                    for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                        let p = world(model, q, axes, Some(*b), [sx * half[0], sy * half[1], 0.0]);
                        g.bodies[*b].push(p);
                    }
                }
                crate::contact::Shape::Capsule2 { half_height, radius } => {
                    for y in [-half_height, *half_height] {
                        let c = world(model, q, axes, Some(*b), [0.0, y, 0.0]);
                        g.bodies[*b].extend((0..24).map(|k| {
                            let a = k as f64 * std::f64::consts::TAU / 24.0;
                            [c[0] + radius * a.cos(), c[1] + radius * a.sin()]
                        }));
                    }
                }
                crate::contact::Shape::Polygon { points } => {
                    for p in points {
                        let w = world(model, q, axes, Some(*b), [p[0], p[1], 0.0]);
                        g.bodies[*b].push(w);
                    }
                }
                // A particle's point is drawn as the particle.
                crate::contact::Shape::Point | crate::contact::Shape::Point2 => {}
            }
        }
        for p in &set.planes {
            let n = [p.normal[axes[0]], p.normal[axes[1]]];
            let nn = n[0] * n[0] + n[1] * n[1];
            if nn > 1e-12 {
                let foot = [n[0] * p.offset / nn, n[1] * p.offset / nn];
                g.planes.push((foot, [-n[1], n[0]]));
            }
        }
    }
}

/// Springs: their two ends, on their bodies or on the ground.
fn add_springs(g: &mut Geometry, model: &Model, q: &[f64], axes: [usize; 3]) {
    let system = &model.scene.system;
    for f in system.forces() {
        if let Force::SpringDamper { a, b, .. } = f {
            let pa = world(model, q, axes, Some(a.body), a.local);
            g.bodies[a.body].push(pa);
            let pb = match b {
                End::Body(b) => {
                    let p = world(model, q, axes, Some(b.body), b.local);
                    g.bodies[b.body].push(p);
                    p
                }
                End::World(x) => {
                    let p = project(*x, axes);
                    g.ground.push(p);
                    p
                }
            };
            g.springs.push((pa, pb));
        }
    }
}

/// Ground anchors: a short hatched bar under each.
fn draw_ground(svg: &mut String, ground: &[[f64; 2]], panel: &Panel) {
    let unit = panel.unit;
    for p in ground {
        let [x, y] = panel.px(*p);
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
}

/// Springs: a zigzag of 12 teeth.
fn draw_springs(svg: &mut String, springs: &[([f64; 2], [f64; 2])], panel: &Panel) {
    let unit = panel.unit;
    for (a, b) in springs {
        let (pa, pb) = (panel.px(*a), panel.px(*b));
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
}

/// Bodies: a particle as a dot, a body as the hull of its points, labelled when few.
fn draw_bodies(svg: &mut String, model: &Model, g: &Geometry, panel: &Panel) {
    let unit = panel.unit;
    let labelled_bodies = g.bodies.len() <= LABELLED;
    let system = &model.scene.system;
    for (b, pts) in g.bodies.iter().enumerate() {
        if pts.is_empty() {
            continue; // the clock
        }
        let colour = COLOURS[b % COLOURS.len()];
        let kind = system.bodies()[b].kind;
        let h = hull(pts.clone());
        if matches!(kind, BodyKind::Particle2 | BodyKind::Particle3) || h.len() == 1 {
            let [x, y] = panel.px(pts[0]);
            let _ = writeln!(
                svg,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{colour}"/>"#,
                (unit * 0.8).clamp(4.0, 12.0)
            );
        } else {
            let d: Vec<String> = h.iter().map(|p| panel.px(*p)).map(|[x, y]| format!("{x:.1},{y:.1}")).collect();
            let w = (unit * 0.6).clamp(3.0, 10.0);
            let _ = writeln!(
                svg,
                r#"<polygon points="{}" fill="{colour}" fill-opacity="0.25" stroke="{colour}" stroke-width="{w:.1}" stroke-linejoin="round"/>"#,
                d.join(" ")
            );
        }
        let [x, y] = panel.px(pts[0]);
        let _ = writeln!(svg, r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="black"/>"#);
        if labelled_bodies {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="13" fill="{colour}">{}</text>"#,
                x + 6.0,
                y - 6.0,
                escape(&model.body_names[b])
            );
        }
    }
}

/// Joints: rings, each type labelled once per place.
fn draw_rings(svg: &mut String, model: &Model, g: &Geometry, panel: &Panel) {
    let mut labelled: Vec<[f64; 2]> = Vec::new();
    for (p, kind) in &g.rings {
        let [x, y] = panel.px(*p);
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
}

/// A scale bar of the round length (1, 2 or 5 × 10^k m) nearest a fifth of `span` [m], ending at
/// `right` px.
fn scale_bar(svg: &mut String, panel: &Panel, span: f64, right: f64) {
    let target = span / 5.0;
    let decade = 10f64.powf(target.log10().floor());
    let bar = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * decade)
        .min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()))
        .unwrap_or(decade);
    // Below the title line, above the mechanism's margin.
    let (bx, by) = (right - bar * panel.scale, 50.0);
    let _ = writeln!(
        svg,
        r#"<line x1="{bx:.1}" y1="{by}" x2="{:.1}" y2="{by}" stroke="black" stroke-width="2"/>"#,
        bx + bar * panel.scale
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{}" font-size="12" text-anchor="middle">{} m</text>"#,
        bx + bar * panel.scale / 2.0,
        by - 6.0,
        crate::params::fmt_num(bar)
    );
}

fn header(width: f64, height: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    )
}

/// The SVG picture of `model` at its assembled initial state.
pub(crate) fn mechanism_svg(model: &Model) -> String {
    let scene = &model.scene;
    let g = geometry(model, &scene.q0);
    let (lo, hi) = bounds(std::iter::once(&g));
    let panel = Panel::new((lo, hi), WIDTH, 0.0);
    let mut svg = header(WIDTH, panel.height);
    let spatial = scene.system.bodies().iter().any(|b| b.kind.dim() == 3);
    // The clock of a driven model is not a body one sees; its drives are counted instead.
    let bodies = scene.system.bodies().iter().filter(|b| b.kind != BodyKind::Clock).count();
    let drives = scene.system.constraints().iter().filter(|c| c.driving()).count();
    let title = format!(
        "{} at t = 0 (assembled); {bodies} bodies, {} joints{}",
        escape(&scene.name),
        model.joints.len(),
        if drives > 0 { format!(", {drives} driven coordinates") } else { String::new() },
    );
    let _ = writeln!(svg, r#"<text x="{MARGIN}" y="28" font-size="16">{title}</text>"#);
    if spatial {
        let [a, u, r] = view_axes(model).map(|i| ["x", "y", "z"][i]);
        let note = format!("cabinet projection: {a} across and {u} up to scale, {r} receding at 45° at half length");
        let _ = writeln!(svg, r#"<text x="{MARGIN}" y="48" font-size="12">{note}</text>"#);
    }
    scale_bar(&mut svg, &panel, (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-9), WIDTH - MARGIN);
    draw_geometry(&mut svg, model, &g, &panel);
    svg.push_str("</svg>\n");
    svg
}

/// One recorded cell to animate: its label and its states (t, q).
pub(crate) struct Track {
    /// What the panel is titled with.
    pub label: String,
    /// (t \[s\], q) in time order.
    pub states: Vec<(f64, Vec<f64>)>,
}

/// Width of one panel of an animation \[px\].
const PANEL: f64 = 480.0;

/// The frames of an animation of `tracks` side by side, at most `frames` of them evenly spaced
/// in time over the longest track (a track that ended earlier holds its last state, marked as
/// ended), all panels on the same scale.
pub(crate) fn animation_svgs(model: &Model, tracks: &[Track], frames: usize) -> Vec<String> {
    let geoms: Vec<Vec<Geometry>> =
        tracks.iter().map(|t| t.states.iter().map(|(_, q)| geometry(model, q)).collect()).collect();
    let (lo, hi) = bounds(geoms.iter().flatten());
    let width = PANEL * tracks.len().max(1) as f64;
    let t_end = tracks.iter().filter_map(|t| t.states.last().map(|s| s.0)).fold(0.0f64, f64::max);
    let frames = frames.max(2);
    let mut out = Vec::with_capacity(frames);
    for k in 0..frames {
        let t = t_end * k as f64 / (frames - 1) as f64;
        let mut svg = String::new();
        let mut height = 0.0f64;
        let mut body = String::new();
        for (i, (track, g)) in tracks.iter().zip(&geoms).enumerate() {
            let panel = Panel::new((lo, hi), PANEL, i as f64 * PANEL);
            height = height.max(panel.height);
            // The last state at or before t (the track's end when it ended earlier).
            let j = track.states.partition_point(|s| s.0 <= t + 1e-12).saturating_sub(1);
            let ended = track.states.last().is_some_and(|s| s.0 < t - 1e-12);
            let _ = writeln!(
                body,
                r#"<text x="{:.1}" y="24" font-size="13">{}</text>"#,
                panel.x0 + 12.0,
                escape(&track.label)
            );
            let note = if ended {
                format!("t = {:.3} s (ended)", track.states[j].0)
            } else {
                format!("t = {:.3} s", track.states[j].0)
            };
            let _ = writeln!(
                body,
                r#"<text x="{:.1}" y="44" font-size="12" fill="{}">{note}</text>"#,
                panel.x0 + 12.0,
                if ended { "#b00" } else { "#444" }
            );
            if let Some(gj) = g.get(j) {
                draw_geometry(&mut body, model, gj, &panel);
            }
            if i > 0 {
                let _ = writeln!(body, r##"<line x1="{0:.1}" y1="0" x2="{0:.1}" y2="2000" stroke="#ccc"/>"##, panel.x0);
            }
        }
        svg.push_str(&header(width, height));
        svg.push_str(&body);
        svg.push_str("</svg>\n");
        out.push(svg);
    }
    out
}

/// Text safe inside SVG.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Writes `<stem>.svg` and `<stem>.png` of `model`.
pub(crate) fn draw(model: &Model, stem: &Path) -> Result<(), crate::input::FileError> {
    let svg = mechanism_svg(model);
    let (svg_path, png_path) = (stem.with_extension("svg"), stem.with_extension("png"));
    std::fs::write(&svg_path, &svg).map_err(|e| crate::input::FileError::io(&svg_path, &e))?;
    super::plot::rasterise(&svg, &png_path).map_err(|e| crate::input::FileError::new(&png_path, e.to_string()))
}
