//! `check`: what a mechanism is before it is run — its size, how consistent its initial state is,
//! the rank of J at q₀ (degrees of freedom, redundant rows named) and the joint coordinates
//! `lagrangian` would give it.
//!
//! The rank is read off a QR factorization of Jᵀ with column pivoting (Golub & Van Loan, Matrix
//! Computations, 4th ed., §5.4.2): the pivoting picks constraint rows greedily by the size of what
//! they add, so the rows left past the numerical rank are the redundant ones — each is a
//! combination of rows picked before it. Numerical rank: |R_kk| > max(m, n) · ε · |R_00|. The
//! factorization is dense, so it is done for at most [`MAX_RANK_ROWS`] rows.

use crate::metrics::inf_norm;
use crate::scene::Scene;
use nalgebra::DMatrix;

/// The largest number of constraint rows whose rank `check` computes (dense QR: 8 · n · m bytes
/// and about 2 n m² flops).
pub const MAX_RANK_ROWS: usize = 2000;
/// The largest J (rows × coordinates) whose rank `check` computes: 8 · 4·10⁶ B = 32 MB.
pub const MAX_RANK_ENTRIES: usize = 4_000_000;

/// The rank of J at `q` and the redundant rows: (rank, rows past the rank in pivot order). Only
/// coordinates that move count (W > 0): a driven scene's clock column is time, which no
/// constraint force moves, so a drive of a coordinate a joint already fixes is redundant.
pub fn rank(scene: &Scene, q: &[f64]) -> (usize, Vec<usize>) {
    let (m, n) = (scene.system.nrows(), scene.system.ndof());
    // Jᵀ (n × m): one column per row of J.
    let mut jt = dense_jacobian(scene, q).transpose();
    for (i, &w) in scene.system.inv_mass().iter().enumerate() {
        if w == 0.0 {
            jt.row_mut(i).fill(0.0);
        }
    }
    let qr = jt.col_piv_qr();
    let r = qr.r();
    let mut order = DMatrix::from_fn(1, m, |_, j| j as f64);
    qr.p().permute_columns(&mut order);
    let top = if m > 0 && n > 0 { r[(0, 0)].abs() } else { 0.0 };
    let tol = (m.max(n) as f64) * f64::EPSILON * top;
    let k = (0..m.min(n)).take_while(|&i| r[(i, i)].abs() > tol).count();
    let redundant = (k..m).map(|i| order[(0, i)] as usize).collect();
    (k, redundant)
}

/// J(q) as a dense m × n matrix (for small systems: checks and validation).
pub fn dense_jacobian(scene: &Scene, q: &[f64]) -> DMatrix<f64> {
    let sys = &scene.system;
    let (m, n) = (sys.nrows(), sys.ndof());
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(q, &mut jac);
    let mut dense = vec![0.0; m * n];
    jac.to_dense(&mut dense);
    DMatrix::from_column_slice(m, n, &dense)
}

/// The row `row` of J as "constraint i (`kind`), row r".
pub fn name_row(scene: &Scene, row: usize) -> String {
    let sys = &scene.system;
    let ci = sys.row_offsets().partition_point(|&r0| r0 <= row) - 1;
    format!("constraint {ci} (`{}`) row {}", sys.constraints()[ci].kind(), row - sys.row_offsets()[ci])
}

/// The velocity coordinates that can move (the clock's coordinate is time, not a degree of freedom).
fn free_coordinates(scene: &Scene) -> usize {
    scene.system.inv_mass().iter().filter(|&&w| w > 0.0).count()
}

/// The degrees of freedom at q0, free velocity coordinates − rank J(q0), or `None` when J is past
/// the size the dense rank-revealing QR is done for.
pub fn degrees_of_freedom(scene: &Scene) -> Option<usize> {
    let (m, n) = (scene.system.nrows(), scene.system.ndof());
    if m > MAX_RANK_ROWS || m.saturating_mul(n) > MAX_RANK_ENTRIES {
        return None;
    }
    Some(free_coordinates(scene) - rank(scene, &scene.q0).0)
}

/// The report of one scene variant, several lines.
pub fn describe(label: &str, scene: &Scene) -> String {
    let sys = &scene.system;
    let (m, n) = (sys.nrows(), sys.ndof());
    let mut kinds: Vec<&str> = sys.bodies().iter().map(|b| b.kind.label()).collect();
    kinds.dedup();
    let mut out = format!(
        "{label}: {} bodies ({}), {n} velocity coordinates, {} constraints, {m} rows{}\n",
        sys.bodies().len(),
        kinds.join(", "),
        sys.constraints().len(),
        if sys.contacts().is_some() { ", contact" } else { "" }
    );
    let mut c = vec![0.0; m];
    sys.eval_constraints(&scene.q0, &mut c);
    let mut jac = sys.jacobian_layout();
    sys.fill_jacobian(&scene.q0, &mut jac);
    let mut jv = vec![0.0; m];
    jac.mul(&scene.v0, &mut jv);
    out.push_str(&format!(
        "  initial state: |C(q0)|inf = {:.2e}, |J v0|inf = {:.2e}; energy scale {:.4e} J ({})\n",
        inf_norm(&c),
        inf_norm(&jv),
        scene.energy_scale.joules,
        scene.energy_scale.definition
    ));
    if m > MAX_RANK_ROWS || m.saturating_mul(n) > MAX_RANK_ENTRIES {
        out.push_str(&format!(
            "  rank of J: not computed ({m} rows × {n} coordinates; the dense rank-revealing QR is done up to {MAX_RANK_ROWS} rows and {MAX_RANK_ENTRIES} entries)\n"
        ));
    } else {
        let (k, redundant) = rank(scene, &scene.q0);
        let dof = free_coordinates(scene) - k;
        out.push_str(&format!(
            "  rank of J at q0: {k} of {m} rows; {dof} degree{} of freedom",
            if dof == 1 { "" } else { "s" }
        ));
        if redundant.is_empty() {
            out.push_str("; no redundant rows\n");
        } else {
            let shown: Vec<String> = redundant.iter().take(10).map(|&r| name_row(scene, r)).collect();
            let more = if redundant.len() > 10 { format!(" and {} more", redundant.len() - 10) } else { String::new() };
            out.push_str(&format!(
                "; {} redundant: {}{more} (direct solves of J W Jᵀ will find it singular; `force`, `lagrangian`, `impulse`, `rattle`, `midpoint` and `soft_step` take `reg`, XPBD its compliance)\n",
                redundant.len(),
                shown.join(", ")
            ));
        }
    }
    match crate::multibody::footprint(sys) {
        Ok(_) => out.push_str(&format!("  joint coordinates (lagrangian): {}\n", joint_summary(scene))),
        Err(e) => out.push_str(&format!("  joint coordinates (lagrangian): none — {}\n", e.0)),
    }
    out
}

/// "k coordinates: …; explicit: …" for the scene's joint tree.
fn joint_summary(scene: &Scene) -> String {
    use std::collections::BTreeMap;
    let sys = &scene.system;
    let cons = sys.constraints();
    // (constraint of each tree joint, its coordinate kind), the explicit constraints, k.
    type Joints = Vec<(Option<usize>, String)>;
    let (joints, loops, dim): (Joints, Vec<usize>, usize) = if crate::multibody::in_space(sys) {
        let t = crate::multibody::Tree3::new(sys).expect("footprint built it");
        let j = t.links.iter().map(|l| (l.constraint, format!("{:?}", l.joint).to_lowercase())).collect();
        (j, t.loops, t.dim)
    } else {
        let t = crate::multibody::Tree::new(sys).expect("footprint built it");
        let j = t
            .links
            .iter()
            .map(|l| {
                let kind = match l.joint {
                    crate::multibody::JointKind::Arm(_) => "rod angle".to_string(),
                    k => format!("{k:?}").to_lowercase(),
                };
                (l.constraint, kind)
            })
            .collect();
        (j, t.loops, t.dim)
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (c, kind) in &joints {
        let from = c.map_or("free body".to_string(), |ci| format!("`{}`", cons[ci].kind()));
        *counts.entry(format!("{from} as {kind}")).or_default() += 1;
    }
    let tree: Vec<String> = counts.iter().map(|(k, n)| format!("{n} × {k}")).collect();
    let explicit = if loops.is_empty() {
        "none".to_string()
    } else {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for &ci in &loops {
            *by.entry(cons[ci].kind()).or_default() += 1;
        }
        by.iter().map(|(k, n)| format!("{n} × `{k}`")).collect::<Vec<_>>().join(", ")
    };
    format!("{dim} coordinates; tree: {}; kept explicit: {explicit}", tree.join(", "))
}
