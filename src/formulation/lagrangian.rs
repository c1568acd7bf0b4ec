//! `lagrangian` — Lagrange's equations in joint coordinates, in linear time.
//!
//! The coordinates come from the constraint graph ([`crate::multibody::Tree`]): a spanning tree
//! whose joints become angles and slides. On the tree, M(u) ü = Q(u, u̇) (Witkin 1997, eq. 13, with
//! M = Jᵀ M J) is evaluated by the articulated-body algorithm in O(N) ([`crate::multibody::aba`]):
//! no k × k matrix is formed, the tree's constraints hold identically and do not drift.
//! Constraints left out of the tree (loop closures: four-bar, slider-crank) stay explicit in the
//! mixed form (docs/design.md §2.2)
//!   M(u) ü = Q + Gᵀ λ,   G M⁻¹ Gᵀ λ = −G M⁻¹ Q − Ġ u̇ − k_s C − k_d Ċ,
//! with G = J_loop ∂q/∂u, the same Baumgarte feedback as `force`, and G M⁻¹ Gᵀ (m × m, m = loop
//! rows) formed column by column from m responses of the tree at rest and solved by the cell's
//! linear solver. On a tree the solver is not used.
//! The constraint force for the power metric is Q̂ = M q̈ − Q.
//! Driving constraints (docs/design.md §5.1) stay explicit in the same way; the scene's clock is no
//! link of the tree, and its time s and rate ṡ ride after the joint coordinates with s̈ = 0, written
//! into the Cartesian state wherever the drives are evaluated.

use super::force::ForceParams;
use super::registry::{FormulationEntry, FormulationKind, FormulationParams};
use super::{Dynamics, Gains, NotApplicable, SecondOrderOde, SolverCounters};
use crate::constraint::{MAX_LOCAL_DOF, MAX_LOCAL_NQ, MAX_ROWS};
use crate::linsolve::{LinearSolver, Operator, SolveError};
use crate::multibody::TreeDynamics;
use crate::params::Params;
use crate::scene::Scene;
use crate::system::System;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `lagrangian`: the Baumgarte feedback on the loop closures, as for `force`
/// (k_s, k_d, or ω, ζ); unused on a tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct LagrangianParams(pub ForceParams);

impl Params for LagrangianParams {
    fn check(&self, given: &[&str]) -> Result<(), String> {
        self.0.check(given)
    }
}

impl FormulationParams for LagrangianParams {
    fn build<'a>(&self, scene: &'a Scene, solver: Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable> {
        let mut l = Lagrangian::new(scene, self.0.gains(), solver)?;
        l.reg = self.0.reg;
        Ok(Dynamics::Ode(Box::new(l)))
    }
}

/// The registry entry of `lagrangian`.
pub const ENTRY: FormulationEntry = FormulationEntry::of::<LagrangianParams>(
    "lagrangian",
    "joint coordinates from the constraint graph, M(u) u'' = Q by the articulated-body algorithm in O(N) (Featherstone 2008 ch. 7); loop closures explicit, G M^-1 G^T lambda with the cell's solver and force's feedback; planar mechanisms",
    FormulationKind::Ode,
)
.solving(super::registry::SystemKind::LoopClosure);

/// The joint-coordinate formulation on one scene, with its workspaces.
pub struct Lagrangian<'a> {
    tree: Box<dyn TreeDynamics + 'a>,
    /// A second workspace for the read-only queries (`cartesian`, `initial`).
    probe: std::cell::RefCell<Box<dyn TreeDynamics + 'a>>,
    system: &'a System,
    scene: &'a Scene,
    solver: Box<dyn LinearSolver>,
    gains: Gains,
    /// Tikhonov term added to the diagonal of G M⁻¹ Gᵀ in the dynamics (not in the projection).
    reg: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    applied: Vec<f64>,
    force: Vec<f64>,
    qdd: Vec<f64>,
    udd: Vec<f64>,
    loops: Loops,
    counters: SolverCounters,
    /// A driven scene's clock: its (q, v) indices in the Cartesian state. Its time s and rate ṡ
    /// ride after the joint coordinates (s̈ = 0); the drives stay explicit, like loop closures.
    clock: Option<(usize, usize)>,
    /// (s, ṡ) of the state last evaluated, written into `q`, `v` with every Cartesian state.
    clock_now: (f64, f64),
}

/// The explicit loop closures: their rows and the m × m system G M⁻¹ Gᵀ.
struct Loops {
    /// Constraint indices.
    cons: Vec<usize>,
    /// First row of each constraint in the loop rows.
    row_start: Vec<usize>,
    /// Local Jacobian of each row (row-major, `MAX_LOCAL_DOF` wide).
    jac: Vec<[f64; MAX_LOCAL_DOF]>,
    /// Right-hand side, then multipliers.
    rhs: Vec<f64>,
    lambda: Vec<f64>,
    /// G M⁻¹ Gᵀ, column-major.
    a: Vec<f64>,
    /// Unit-load scratch in Cartesian and joint space.
    unit: Vec<f64>,
    response: Vec<f64>,
    scratch_u: Vec<f64>,
    /// Projection: the correction, the saved position, zero rates.
    du: Vec<f64>,
    x_save: Vec<f64>,
    zero_v: Vec<f64>,
}

impl<'a> Lagrangian<'a> {
    /// Sets up the joint tree of `scene` and the loop-closure system, or says which joint or body
    /// has no joint coordinates here.
    pub fn new(scene: &'a Scene, gains: Gains, mut solver: Box<dyn LinearSolver>) -> Result<Self, NotApplicable> {
        let system = &scene.system;
        if system.contacts().is_some() {
            // Joint coordinates have no rows for the contacts' inequalities: refused, not ignored.
            return Err(NotApplicable(crate::normal_solve::CONTACT_NOT_APPLICABLE.into()));
        }
        let tree = crate::multibody::build(system).map_err(|e| NotApplicable(e.0))?;
        let probe = crate::multibody::build(system).map_err(|e| NotApplicable(e.0))?;
        let n = system.ndof();
        let cons = tree.loops().to_vec();
        let m: usize = cons.iter().map(|&ci| system.constraints()[ci].rows()).sum();
        let mut row_start = Vec::with_capacity(cons.len() + 1);
        let mut r = 0;
        for &ci in &cons {
            row_start.push(r);
            r += system.constraints()[ci].rows();
        }
        row_start.push(r);
        let a = vec![0.0; m * m];
        if m > 0 {
            solver.prepare(&Operator::Dense { n: m, a: &a }).map_err(|e| NotApplicable(e.to_string()))?;
        }
        let (k, xk) = (tree.dim(), tree.position_dim());
        Ok(Lagrangian {
            probe: std::cell::RefCell::new(probe),
            tree,
            system,
            scene,
            solver,
            gains,
            reg: 0.0,
            q: vec![0.0; system.nq()],
            v: vec![0.0; n],
            applied: vec![0.0; n],
            force: vec![0.0; n],
            qdd: vec![0.0; n],
            udd: vec![0.0; k],
            loops: Loops {
                cons,
                row_start,
                jac: vec![[0.0; MAX_LOCAL_DOF]; m],
                rhs: vec![0.0; m],
                lambda: vec![0.0; m],
                a,
                unit: vec![0.0; n],
                response: vec![0.0; n],
                scratch_u: vec![0.0; k],
                du: vec![0.0; k],
                x_save: vec![0.0; xk],
                zero_v: vec![0.0; k],
            },
            counters: SolverCounters::default(),
            clock: system
                .bodies()
                .iter()
                .position(|b| b.kind == crate::model::BodyKind::Clock)
                .map(|b| (system.q_offsets()[b], system.offsets()[b])),
            clock_now: (0.0, 0.0),
        })
    }

    /// The tree's Cartesian state into `q`, `v`, with the clock's entries from `clock_now`.
    fn cartesian_here(&mut self) {
        self.tree.cartesian_state(&mut self.q, &mut self.v);
        if let Some((cq, cv)) = self.clock {
            (self.q[cq], self.v[cv]) = self.clock_now;
        }
    }

    /// (joint velocities k, joint positions) of the tree: the state's length without the clock.
    fn tree_dims(&self) -> (usize, usize) {
        (self.tree.dim(), self.tree.position_dim())
    }

    /// The joint accelerations at (u, u̇) into `udd`; leaves q, v and Q in the workspaces (and,
    /// with loop closures, the total force Q + Gᵀλ).
    fn evaluate(&mut self, u: &[f64], ud: &[f64], count: bool) -> Result<(), SolveError> {
        let (k, xk) = self.tree_dims();
        if self.clock.is_some() {
            self.clock_now = (u[xk], ud[k]);
        }
        let bodies = self.system.bodies().len();
        let singular = move |d: crate::multibody::aba::Degenerate| d.error(bodies);
        self.tree.set_state(&u[..xk], &ud[..k]);
        self.cartesian_here();
        self.system.applied_forces(&self.q, &self.v, &mut self.applied);
        self.tree.solve(&self.applied, &mut self.udd).map_err(singular)?;
        if !self.loops.cons.is_empty() {
            self.force.copy_from_slice(&self.applied);
            self.tree.cartesian_accelerations(true, &mut self.qdd);
            self.close_loops(count)?;
            self.tree.resolve(&self.force, true, &mut self.udd).map_err(singular)?;
        }
        Ok(())
    }

    /// Solves G M⁻¹ Gᵀ λ = −J q̈₀ − J̇ v − k_s C − k_d Ċ for the loop multipliers and adds Gᵀ λ
    /// (as Jᵀ λ in Cartesian forces) to `force`. Needs q̈₀ in `qdd`.
    fn close_loops(&mut self, count: bool) -> Result<(), SolveError> {
        let (sys, lp) = (self.system, &mut self.loops);
        let Gains { ks, kd } = self.gains;
        let (mut ql, mut vl, mut al) = ([0.0; MAX_LOCAL_NQ], [0.0; MAX_LOCAL_DOF], [0.0; MAX_LOCAL_DOF]);
        let (mut c, mut jdv) = ([0.0; MAX_ROWS], [0.0; MAX_ROWS]);
        let mut jl = [0.0; MAX_ROWS * MAX_LOCAL_DOF];
        for (li, &ci) in lp.cons.iter().enumerate() {
            let con = &sys.constraints()[ci];
            let nq = sys.gather_q(ci, &self.q, &mut ql);
            let nd = sys.gather(ci, &self.v, &mut vl);
            sys.gather(ci, &self.qdd, &mut al);
            let rows = con.rows();
            con.eval_with_jacobian(&ql[..nq], &mut c[..rows], &mut jl[..rows * nd]);
            con.jdot_v(&ql[..nq], &vl[..nd], &mut jdv[..rows]);
            for r in 0..rows {
                let row = &jl[r * nd..(r + 1) * nd];
                let (jv, ja) = (dot(row, &vl[..nd]), dot(row, &al[..nd]));
                let gr = lp.row_start[li] + r;
                lp.jac[gr][..nd].copy_from_slice(row);
                // Witkin eq. 11 on the loop rows, with q̈₀ the tree's acceleration under Q.
                lp.rhs[gr] = -jdv[r] - ja - ks * c[r] - kd * jv;
            }
        }
        self.loop_matrix()?;
        let m = self.loops.rhs.len();
        for i in 0..m {
            self.loops.a[i + i * m] += self.reg;
        }
        self.solve_loops(count)?;
        let lp = &mut self.loops;
        add_jt(sys, lp, &lp.lambda, &mut self.force);
        Ok(())
    }

    /// G M⁻¹ Gᵀ at the tree's state (its inertias articulated) into `loops.a`: column s is J times
    /// the tree's response at rest to the unit load J_sᵀ. Needs the loop rows' J in `loops.jac`.
    fn loop_matrix(&mut self) -> Result<(), SolveError> {
        let (sys, lp) = (self.system, &mut self.loops);
        let m = lp.rhs.len();
        let bodies = sys.bodies().len();
        for (ls, &cs) in lp.cons.iter().enumerate() {
            let map = sys.local_map(cs);
            for rs in 0..sys.constraints()[cs].rows() {
                let col = lp.row_start[ls] + rs;
                lp.unit.fill(0.0);
                for (k, &g) in map.iter().enumerate() {
                    lp.unit[g as usize] += lp.jac[col][k];
                }
                self.tree.resolve(&lp.unit, false, &mut lp.scratch_u).map_err(|d| d.error(bodies))?;
                self.tree.cartesian_accelerations(false, &mut lp.response);
                for (lr, &cr) in lp.cons.iter().enumerate() {
                    let mr = sys.local_map(cr);
                    for r in 0..sys.constraints()[cr].rows() {
                        let row = lp.row_start[lr] + r;
                        let s: f64 = mr.iter().zip(&lp.jac[row]).map(|(&g, j)| j * lp.response[g as usize]).sum();
                        lp.a[row + col * m] = s;
                    }
                }
            }
        }
        Ok(())
    }

    /// λ with G M⁻¹ Gᵀ λ = rhs, by the cell's solver (counted with `count`).
    fn solve_loops(&mut self, count: bool) -> Result<(), SolveError> {
        let lp = &mut self.loops;
        let m = lp.rhs.len();
        let info = self.solver.solve(&Operator::Dense { n: m, a: &lp.a }, &lp.rhs, &mut lp.lambda)?;
        if count {
            self.counters.record(info);
        }
        Ok(())
    }

    /// The loop rows' C (into `loops.rhs`, negated) and J at the Cartesian state in `q`; ‖C‖∞.
    fn loop_residual(&mut self) -> f64 {
        let (sys, lp) = (self.system, &mut self.loops);
        let mut ql = [0.0; MAX_LOCAL_NQ];
        let mut c = [0.0; MAX_ROWS];
        let mut jl = [0.0; MAX_ROWS * MAX_LOCAL_DOF];
        let mut res = 0.0_f64;
        for (li, &ci) in lp.cons.iter().enumerate() {
            let con = &sys.constraints()[ci];
            let nq = sys.gather_q(ci, &self.q, &mut ql);
            let (rows, nd) = (con.rows(), con.local_dof());
            con.eval_with_jacobian(&ql[..nq], &mut c[..rows], &mut jl[..rows * nd]);
            for r in 0..rows {
                let gr = lp.row_start[li] + r;
                lp.jac[gr][..nd].copy_from_slice(&jl[r * nd..(r + 1) * nd]);
                lp.rhs[gr] = -c[r];
                res = res.max(c[r].abs());
            }
        }
        res
    }

    /// Post-step projection of the loop closures (the `projection` stabilizer in joint
    /// coordinates; docs/design.md §2.8): Gauss–Newton in the metric of M(u),
    ///   G M⁻¹ Gᵀ δ = −C,  u ← u ⊕ M⁻¹ Gᵀ δ   until ‖C‖∞ ≤ tol (a step that does not reduce ‖C‖∞
    /// is halved, up to 8 times), then u̇ ← u̇ + M⁻¹ Gᵀ μ with G M⁻¹ Gᵀ μ = −G u̇. The tree's
    /// constraints hold by construction; only the loop rows move.
    fn project_loops(&mut self, x: &mut [f64], xd: &mut [f64], tol: f64, max_iter: usize) -> Result<(), SolveError> {
        if self.loops.cons.is_empty() {
            return Ok(());
        }
        let mut it = 0;
        loop {
            self.tree.set_state(x, &self.loops.zero_v);
            self.cartesian_here();
            let res = self.loop_residual();
            if res <= tol {
                break;
            }
            if it >= max_iter || !res.is_finite() {
                return Err(SolveError::NotConverged { solver: "projection", iterations: it, residual: res, tol });
            }
            self.loop_correction()?;
            // Backtracking on ‖C‖∞.
            self.loops.x_save.copy_from_slice(x);
            let mut scale = 1.0;
            for _ in 0..8 {
                self.tree.advance(x, &self.loops.du, scale);
                self.tree.set_state(x, &self.loops.zero_v);
                self.cartesian_here();
                if self.loop_residual() < res {
                    break;
                }
                x.copy_from_slice(&self.loops.x_save);
                scale *= 0.5;
            }
            it += 1;
        }
        // Velocities: G M⁻¹ Gᵀ μ = −G u̇ at the projected u.
        self.tree.set_state(x, xd);
        self.cartesian_here();
        self.loop_residual();
        let (sys, lp) = (self.system, &mut self.loops);
        let mut vl = [0.0; MAX_LOCAL_DOF];
        for (li, &ci) in lp.cons.iter().enumerate() {
            let nd = sys.gather(ci, &self.v, &mut vl);
            for r in 0..sys.constraints()[ci].rows() {
                let gr = lp.row_start[li] + r;
                lp.rhs[gr] = -dot(&lp.jac[gr][..nd], &vl[..nd]);
            }
        }
        self.loop_correction()?;
        for (v, d) in xd.iter_mut().zip(&self.loops.du) {
            *v += d;
        }
        Ok(())
    }

    /// The M-orthogonal correction for the right-hand side in `loops.rhs` at the tree's state:
    /// G M⁻¹ Gᵀ δ = rhs, then `loops.du` = M⁻¹ Gᵀ δ.
    fn loop_correction(&mut self) -> Result<(), SolveError> {
        let bodies = self.system.bodies().len();
        self.force.fill(0.0);
        self.tree.solve(&self.force, &mut self.udd).map_err(|d| d.error(bodies))?;
        self.loop_matrix()?;
        self.loops.lambda.fill(0.0);
        self.solve_loops(true)?;
        let mut du = std::mem::take(&mut self.loops.du);
        let r = self.correction(&mut du);
        self.loops.du = du;
        r
    }

    /// du = M⁻¹ Gᵀ λ for the multipliers in `loops.lambda`: the tree's response at rest to Jᵀ λ.
    fn correction(&mut self, du: &mut [f64]) -> Result<(), SolveError> {
        let bodies = self.system.bodies().len();
        let mut unit = std::mem::take(&mut self.loops.unit);
        unit.fill(0.0);
        add_jt(self.system, &self.loops, &self.loops.lambda, &mut unit);
        let r = self.tree.resolve(&unit, false, du).map_err(|d| d.error(bodies));
        self.loops.unit = unit;
        r
    }
}

/// out += Jᵀ λ over the loop rows (Cartesian generalized forces).
fn add_jt(sys: &System, lp: &Loops, lambda: &[f64], out: &mut [f64]) {
    for (ls, &cs) in lp.cons.iter().enumerate() {
        let map = sys.local_map(cs);
        for rs in 0..sys.constraints()[cs].rows() {
            let row = lp.row_start[ls] + rs;
            for (k, &g) in map.iter().enumerate() {
                out[g as usize] += lp.jac[row][k] * lambda[row];
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// With a clock (driven scenes) the state is (joint coordinates, s) and (joint rates, ṡ), s̈ = 0.
impl SecondOrderOde for Lagrangian<'_> {
    fn dim(&self) -> usize {
        self.tree.dim() + usize::from(self.clock.is_some())
    }

    fn position_dim(&self) -> usize {
        self.tree.position_dim() + usize::from(self.clock.is_some())
    }

    fn advance(&self, x: &mut [f64], xd: &[f64], h: f64) {
        let (k, xk) = self.tree_dims();
        self.tree.advance(&mut x[..xk], &xd[..k], h);
        if self.clock.is_some() {
            x[xk] += h * xd[k];
        }
    }

    fn position_rate(&self, x: &[f64], xd: &[f64], out: &mut [f64]) {
        let (k, xk) = self.tree_dims();
        self.tree.position_rate(&x[..xk], &xd[..k], &mut out[..xk]);
        if self.clock.is_some() {
            out[xk] = xd[k];
        }
    }

    fn normalize(&self, x: &mut [f64]) -> bool {
        let xk = self.tree.position_dim();
        self.tree.normalize(&mut x[..xk])
    }

    fn clock_index(&self) -> Option<usize> {
        self.clock.map(|_| self.tree.position_dim())
    }

    fn initial(&self, x: &mut [f64], xd: &mut [f64]) {
        let (k, xk) = self.tree_dims();
        self.probe.borrow_mut().reduce(&self.scene.q0, &self.scene.v0, &mut x[..xk], &mut xd[..k]);
        if let Some((cq, cv)) = self.clock {
            (x[xk], xd[k]) = (self.scene.q0[cq], self.scene.v0[cv]);
        }
    }

    fn accel(&mut self, x: &[f64], xd: &[f64], a: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(x, xd, true)?;
        let k = self.tree.dim();
        a[..k].copy_from_slice(&self.udd);
        if self.clock.is_some() {
            a[k] = 0.0;
        }
        Ok(())
    }

    fn cartesian(&self, x: &[f64], xd: &[f64], q: &mut [f64], v: &mut [f64]) {
        let (k, xk) = self.tree_dims();
        let mut t = self.probe.borrow_mut();
        t.set_state(&x[..xk], &xd[..k]);
        t.cartesian_state(q, v);
        if let Some((cq, cv)) = self.clock {
            (q[cq], v[cv]) = (x[xk], xd[k]);
        }
    }

    fn cartesian_acceleration(&self, x: &[f64], xd: &[f64], a: &[f64], out: &mut [f64]) {
        // q̈ = J ü + J̇ u̇: the outward pass with the given ü.
        let (k, xk) = self.tree_dims();
        let mut t = self.probe.borrow_mut();
        t.set_state(&x[..xk], &xd[..k]);
        t.prescribed_accelerations(&a[..k]);
        t.cartesian_accelerations(true, out);
        if let Some((_, cv)) = self.clock {
            out[cv] = 0.0;
        }
    }

    fn constraint_force(&mut self, x: &[f64], xd: &[f64], out: &mut [f64]) -> Result<(), SolveError> {
        self.evaluate(x, xd, false)?;
        self.tree.cartesian_accelerations(true, &mut self.qdd);
        // Q̂ = M q̈ − Q
        for (((o, m), a), q) in out.iter_mut().zip(self.system.mass()).zip(&self.qdd).zip(&self.applied) {
            *o = m * a - q;
        }
        Ok(())
    }

    fn solver_counters(&self) -> SolverCounters {
        self.counters
    }

    fn projects(&self) -> bool {
        true
    }

    fn project(&mut self, x: &mut [f64], xd: &mut [f64], tol: f64, max_iter: usize) -> Result<(), SolveError> {
        let (k, xk) = self.tree_dims();
        if self.clock.is_some() {
            self.clock_now = (x[xk], xd[k]);
        }
        self.project_loops(&mut x[..xk], &mut xd[..k], tol, max_iter)
    }
}
