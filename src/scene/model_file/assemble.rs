//! Assembly: a declared (approximate) state made consistent before a run.
//!
//! Positions: Gauss–Newton on C(q) = 0 in the mass metric, each step the smallest in ‖Δv‖_M that
//! zeroes the linearised C: Δv = −W Jᵀ (J W Jᵀ + μ I)⁻¹ C, q ← q ⊕ Δv (the exponential map for
//! orientations), with backtracking on ‖C‖∞. Kept coordinates have W = 0, so they stay as
//! declared. μ = 10⁻¹² · max diag(J W Jᵀ) is a Tikhonov term that lets redundant rows, and rows
//! that kept coordinates leave without a free column, be solved as least squares; it shortens
//! each step by a relative 10⁻¹² at most, which the iteration removes.
//! Velocities: the same projection of v onto J v = 0, keeping the chosen velocities.
//! Sparse throughout (the project's sparse Cholesky on J W Jᵀ + μ I): no dense matrix.

use crate::linsolve::{LinearSolver, Operator, Reg, SparseCholesky};
use crate::model::BodyKind;
use crate::scene::Scene;
use crate::sparse::NormalMatrix;

/// What assembly did to the declared state.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembly {
    /// ‖C(q)‖∞ of the declared positions (units of C).
    pub residual_before: f64,
    /// ‖C(q0)‖∞ after assembly.
    pub residual_after: f64,
    /// Largest change of a translational coordinate \[m\].
    pub moved_position: f64,
    /// Largest change of an orientation \[rad\] (a planar angle, or a rotation in space).
    pub moved_angle: f64,
    /// ‖J v‖∞ of the declared velocities.
    pub velocity_residual_before: f64,
    /// ‖J v0‖∞ after assembly.
    pub velocity_residual_after: f64,
    /// Largest change of a velocity coordinate \[m/s or rad/s\].
    pub moved_velocity: f64,
    /// Gauss–Newton iterations taken.
    pub iterations: usize,
    /// Whether the model turned assembly off (`assemble: false`): the declared state is used as
    /// written, off the constraints by the residuals above.
    pub skipped: bool,
}

impl std::fmt::Display for Assembly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.skipped {
            return write!(
                f,
                "assembly off (`assemble: false`): the declared state is used as written, ‖C(q0)‖∞ = {:.3e}, ‖J v0‖∞ = {:.3e}",
                self.residual_before, self.velocity_residual_before
            );
        }
        write!(
            f,
            "assembly moved positions by at most {:.3e} m and orientations by {:.3e} rad in {} Gauss-Newton iterations (‖C‖∞ {:.3e} → {:.3e}), velocities by {:.3e} (‖J v‖∞ {:.3e} → {:.3e})",
            self.moved_position,
            self.moved_angle,
            self.iterations,
            self.residual_before,
            self.residual_after,
            self.moved_velocity,
            self.velocity_residual_before,
            self.velocity_residual_after
        )
    }
}

/// The most Gauss–Newton iterations.
const MAX_ITERATIONS: usize = 100;

fn norm_inf(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| if v.is_nan() { f64::NAN } else { m.max(v.abs()) })
}

/// Assembles `scene`'s q0 and v0 in place. `keep`: indices into q kept as declared; `keep_v`:
/// indices into q whose velocities are kept. Fails when C(q) = 0 cannot be reached to
/// 10⁻⁹ · `length_scale`, naming the constraints that disagree.
/// The projection's J W Jᵀ may need at most `max_bytes` to assemble ([`NormalMatrix::build_bytes`],
/// checked before it is built).
pub fn assemble(
    scene: &mut Scene,
    keep: &[usize],
    keep_v: &[usize],
    length_scale: f64,
    max_bytes: u64,
) -> Result<Assembly, String> {
    let (q_start, v_start) = (scene.q0.clone(), scene.v0.clone());
    let mut out = Assembly {
        residual_before: 0.0,
        residual_after: 0.0,
        moved_position: 0.0,
        moved_angle: 0.0,
        velocity_residual_before: 0.0,
        velocity_residual_after: 0.0,
        moved_velocity: 0.0,
        iterations: 0,
        skipped: false,
    };
    if scene.system.nrows() == 0 {
        return Ok(out);
    }
    let w_q = weights(scene, &velocity_indices(scene, keep)?);
    let w_v = weights(scene, &velocity_indices(scene, keep_v)?);
    let need = NormalMatrix::build_bytes(&scene.system.jacobian_layout());
    if need > max_bytes {
        return Err(format!(
            "assembling the initial state needs about {} MB for J W Jᵀ, over the {} MB allowed (`limits.cell_memory_mb`): its rows share bodies, and every pair of rows on one body is an entry — split the shared body, or raise the limit",
            need.div_ceil(1_000_000),
            max_bytes / 1_000_000
        ));
    }
    let mut projector = Projector::new(scene);
    projector.positions(scene, &w_q, length_scale, &mut out)?;
    projector.velocities(scene, &w_v, &mut out)?;
    moved(scene, (&q_start, &v_start), &mut out);
    Ok(out)
}

/// The velocity indices of the position indices `list` (a rigid3 body's quaternion components
/// cannot be kept alone).
fn velocity_indices(scene: &Scene, list: &[usize]) -> Result<Vec<usize>, String> {
    let system = &scene.system;
    list.iter()
        .map(|&qi| {
            let b = system.q_offsets().partition_point(|&o| o <= qi) - 1;
            let k = qi - system.q_offsets()[b];
            if system.bodies()[b].kind == BodyKind::Rigid3 && k >= 3 {
                return Err(format!(
                    "body {b}'s quaternion component cannot be kept alone; keep a rigid3 body's x, y, z"
                ));
            }
            Ok(system.offsets()[b] + k)
        })
        .collect()
}

/// W = M⁻¹ with the `kept` velocity coordinates' entries zeroed.
fn weights(scene: &Scene, kept: &[usize]) -> Vec<f64> {
    let mut w = scene.system.inv_mass().to_vec();
    for &i in kept {
        w[i] = 0.0;
    }
    w
}

/// The projection Δv = −W Jᵀ (J W Jᵀ + μ I)⁻¹ r with its workspaces, factored symbolically once.
struct Projector {
    jac: crate::sparse::BlockJacobian,
    pattern: NormalMatrix,
    solver: SparseCholesky,
    prepared: bool,
    diag: Vec<f64>,
    c: Vec<f64>,
    y: Vec<f64>,
    dv: Vec<f64>,
}

impl Projector {
    fn new(scene: &Scene) -> Self {
        let system = &scene.system;
        let (n, m) = (system.ndof(), system.nrows());
        let jac = system.jacobian_layout();
        let pattern = NormalMatrix::new(&jac);
        Projector {
            jac,
            pattern,
            solver: SparseCholesky::default(),
            prepared: false,
            diag: vec![0.0; m],
            c: vec![0.0; m],
            y: vec![0.0; m],
            dv: vec![0.0; n],
        }
    }

    /// Δv = −W Jᵀ (J W Jᵀ + μ I)⁻¹ `rhs` at the Jacobian held, into `dv`.
    fn step(&mut self, w: &[f64], rhs: &[f64]) -> Result<(), String> {
        let (jac, pattern) = (&self.jac, &self.pattern);
        let op0 = Operator::Normal { jac, w, pattern, reg: Reg::Uniform(0.0) };
        op0.diagonal(&mut self.diag);
        let mu = 1e-12 * self.diag.iter().fold(0.0f64, |a, &d| a.max(d)).max(f64::MIN_POSITIVE);
        let op = Operator::Normal { jac, w, pattern, reg: Reg::Uniform(mu) };
        if !self.prepared {
            self.solver.prepare(&op).map_err(|e| format!("the model cannot be assembled: {e}"))?;
            self.prepared = true;
        }
        self.y.fill(0.0);
        self.solver.solve(&op, rhs, &mut self.y).map_err(|e| format!("the model cannot be assembled: {e}"))?;
        jac.mul_t(&self.y, &mut self.dv);
        for (d, w) in self.dv.iter_mut().zip(w) {
            *d *= -w;
        }
        Ok(())
    }

    /// Gauss–Newton on C(q0) = 0 with weights `w`, backtracking on ‖C‖∞; stops at a few ulps of
    /// the mechanism's size, or where ‖C‖∞ stops decreasing (the rounding floor).
    fn positions(&mut self, scene: &mut Scene, w: &[f64], length_scale: f64, out: &mut Assembly) -> Result<(), String> {
        let system = &scene.system;
        let mut trial = vec![0.0; scene.q0.len()];
        let mut c_trial = vec![0.0; system.nrows()];
        let tol = 16.0 * f64::EPSILON * length_scale;
        system.eval_constraints_and_jacobian(&scene.q0, &mut self.c, &mut self.jac);
        let mut r = norm_inf(&self.c);
        out.residual_before = r;
        while r > tol && out.iterations < MAX_ITERATIONS && r.is_finite() {
            out.iterations += 1;
            let c = std::mem::take(&mut self.c);
            let stepped = self.step(w, &c);
            self.c = c;
            stepped?;
            // Backtracking: the full step, then halves, until ‖C‖∞ decreases.
            let mut step = 1.0;
            let mut accepted = false;
            for _ in 0..30 {
                trial.copy_from_slice(&scene.q0);
                system.advance(&mut trial, &self.dv, step);
                system.normalize(&mut trial);
                system.eval_constraints(&trial, &mut c_trial);
                if norm_inf(&c_trial) < r {
                    accepted = true;
                    break;
                }
                step *= 0.5;
            }
            if !accepted {
                break; // no decrease along the Gauss–Newton direction: at the floor, or stuck
            }
            scene.q0.copy_from_slice(&trial);
            system.eval_constraints_and_jacobian(&scene.q0, &mut self.c, &mut self.jac);
            r = norm_inf(&self.c);
        }
        out.residual_after = r;
        if !(r <= 1e-9 * length_scale) {
            return Err(format!(
                "the model cannot be assembled: after {} Gauss-Newton iterations ‖C‖∞ = {r:.3e} (needs ≤ 1e-9 × length_scale = {:.3e}); the joints that disagree: {}",
                out.iterations,
                1e-9 * length_scale,
                disagreeing(scene, &self.c, length_scale)
            ));
        }
        Ok(())
    }

    /// v0 ← v0 − W Jᵀ (J W Jᵀ + μI)⁻¹ J v0, twice (the second removes the μ-shortening).
    fn velocities(&mut self, scene: &mut Scene, w: &[f64], out: &mut Assembly) -> Result<(), String> {
        let system = &scene.system;
        system.fill_jacobian(&scene.q0, &mut self.jac);
        let mut jv = vec![0.0; system.nrows()];
        self.jac.mul(&scene.v0, &mut jv);
        out.velocity_residual_before = norm_inf(&jv);
        for _ in 0..2 {
            if norm_inf(&jv) == 0.0 {
                break;
            }
            self.step(w, &jv)?;
            for (v, d) in scene.v0.iter_mut().zip(&self.dv) {
                *v += d;
            }
            self.jac.mul(&scene.v0, &mut jv);
        }
        out.velocity_residual_after = norm_inf(&jv);
        Ok(())
    }
}

/// The (at most three) joints whose rows `c` miss zero by more than 10⁻⁹ · `length_scale`, worst
/// first.
fn disagreeing(scene: &Scene, c: &[f64], length_scale: f64) -> String {
    let system = &scene.system;
    let mut worst: Vec<(f64, usize)> = (0..system.constraints().len())
        .map(|ci| {
            let (o, k) = (system.row_offsets()[ci], system.constraints()[ci].rows());
            (norm_inf(&c[o..o + k]), ci)
        })
        .collect();
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    let named: Vec<String> = worst
        .iter()
        .take(3)
        .filter(|(v, _)| *v > 1e-9 * length_scale)
        .map(|(v, ci)| format!("joints[{ci}] ({}) off by {v:.3e}", system.constraints()[*ci].kind()))
        .collect();
    named.join(", ")
}

/// How far assembly moved the state from the declared (q, v) `start`, into `out`.
fn moved(scene: &Scene, (q_start, v_start): (&[f64], &[f64]), out: &mut Assembly) {
    let system = &scene.system;
    for (b, body) in system.bodies().iter().enumerate() {
        let o = system.q_offsets()[b];
        let (q0, q1) = (&q_start[o..o + body.kind.nq()], &scene.q0[o..o + body.kind.nq()]);
        let dim = body.kind.dim();
        for d in 0..dim {
            out.moved_position = out.moved_position.max((q1[d] - q0[d]).abs());
        }
        match body.kind {
            BodyKind::Rigid2 => out.moved_angle = out.moved_angle.max((q1[2] - q0[2]).abs()),
            BodyKind::Rigid3 => {
                let (a, b) =
                    (crate::model::rotation::quaternion(&q0[3..]), crate::model::rotation::quaternion(&q1[3..]));
                out.moved_angle = out.moved_angle.max(a.angle_to(&b));
            }
            _ => {}
        }
    }
    out.moved_velocity = v_start.iter().zip(&scene.v0).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
}

/// The declared state as it is, for `assemble: false`: its residuals, nothing moved.
pub fn unassembled(scene: &Scene) -> Assembly {
    let system = &scene.system;
    let m = system.nrows();
    let (mut c, mut jv) = (vec![0.0; m], vec![0.0; m]);
    system.eval_constraints(&scene.q0, &mut c);
    let mut jac = system.jacobian_layout();
    system.fill_jacobian(&scene.q0, &mut jac);
    jac.mul(&scene.v0, &mut jv);
    let (r, rv) = (norm_inf(&c), norm_inf(&jv));
    Assembly {
        residual_before: r,
        residual_after: r,
        moved_position: 0.0,
        moved_angle: 0.0,
        velocity_residual_before: rv,
        velocity_residual_after: rv,
        moved_velocity: 0.0,
        iterations: 0,
        skipped: true,
    }
}
