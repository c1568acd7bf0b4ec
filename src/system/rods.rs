//! The system's store of rods between two particles ([`Constraint::particle_rod`]): runs of
//! consecutive such constraints as plain data (the two particles' offsets and the length, 24
//! bytes), so that the Newton step's passes over the constraints — C, J and the stiffness rows,
//! and the convergence test — read them in one stream instead of a pointer, a 96-byte object and
//! its index maps each, and without a virtual call. The arithmetic is the object's
//! (`rod_with_stiffness`, `rod_error`), so every value is the same to the bit.

use super::System;
use crate::constraint::{Constraint, rod_error, rod_with_stiffness};
use crate::model::BodyKind;
use crate::sparse::BlockJacobian;
use std::ops::Range;

/// One rod: the offsets of its two particles in q and in v, and its length L \[m\].
#[derive(Clone, Copy, Debug)]
pub(super) struct Rod {
    q: [u32; 2],
    v: [u32; 2],
    length: f64,
}

/// A run of consecutive constraints that are rods of one dimension: constraints `ci0..ci0 +
/// count`, stored at `rods[first..first + count]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct RodRun {
    ci0: usize,
    count: usize,
    dim: usize,
    first: usize,
}

impl RodRun {
    /// The dimension of the run's rods (2 or 3).
    pub(super) fn dim(&self) -> usize {
        self.dim
    }
}

/// A stretch of the constraint list for a pass: constraints evaluated through their objects, or a
/// run of rods.
pub(super) enum Piece<'a> {
    Objects(Range<usize>),
    Rods(&'a RodRun),
}

impl System {
    /// Records constraint `ci` (just added) in the rod store if it is a rod between two particles.
    pub(super) fn note_rod(&mut self, ci: usize, c: &dyn Constraint) {
        let Some((dim, length)) = c.particle_rod() else { return };
        let &[a, b] = c.bodies() else { return };
        // the store reads `dim` coordinates from each body's offset: particles of that dimension
        let particle = if dim == 3 { BodyKind::Particle3 } else { BodyKind::Particle2 };
        if !matches!(dim, 2 | 3) || [a, b].iter().any(|&i| self.bodies[i].kind != particle) {
            return;
        }
        let coord = |x: usize| u32::try_from(x).expect("fewer than 2^32 coordinates");
        let rod = Rod {
            q: [coord(self.q_offsets[a]), coord(self.q_offsets[b])],
            v: [coord(self.offsets[a]), coord(self.offsets[b])],
            length,
        };
        match self.rod_runs.last_mut() {
            Some(run) if run.dim == dim && run.ci0 + run.count == ci => run.count += 1,
            _ => self.rod_runs.push(RodRun { ci0: ci, count: 1, dim, first: self.rods.len() }),
        }
        self.rods.push(rod);
    }

    /// The constraint list cut into the rod runs and the stretches between them, in order.
    pub(super) fn pieces(&self) -> impl Iterator<Item = Piece<'_>> {
        let n = self.constraints.len();
        let mut next = 0;
        let mut runs = self.rod_runs.iter().peekable();
        std::iter::from_fn(move || {
            if next >= n {
                return None;
            }
            let piece = match runs.peek() {
                Some(run) if run.ci0 == next => Piece::Rods(runs.next()?),
                Some(run) => Piece::Objects(next..run.ci0),
                None => Piece::Objects(next..n),
            };
            next = match &piece {
                Piece::Rods(run) => run.ci0 + run.count,
                Piece::Objects(r) => r.end,
            };
            Some(piece)
        })
    }

    /// d = p_a − p_b of a rod (z = 0 in 2D).
    #[inline(always)]
    fn rod_delta(rod: &Rod, dim: usize, q: &[f64]) -> [f64; 3] {
        let (a, b) = (rod.q[0] as usize, rod.q[1] as usize);
        let mut d = [0.0; 3];
        for i in 0..dim {
            d[i] = q[a + i] - q[b + i];
        }
        d
    }

    /// [`System::eval_with_stiffness`] over one run of rods of dimension `D` (`L` = 2`D` local
    /// columns), with `JT`: Bᵀλ scattered into `jt` block by block.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rods_with_stiffness<const D: usize, const L: usize, const JT: bool>(
        &self,
        run: &RodRun,
        q: &[f64],
        lambda: &[f64],
        c: &mut [f64],
        s: &mut [f64],
        jac: &mut BlockJacobian,
        keep: &impl Fn(f64, f64) -> bool,
        jt: &mut [f64],
    ) {
        debug_assert_eq!((run.dim, L), (D, 2 * D));
        for (k, rod) in self.rods[run.first..run.first + run.count].iter().enumerate() {
            let ci = run.ci0 + k;
            let r0 = jac.constraint_row0(ci);
            let values = jac.constraint_values_mut(ci);
            let (jv, gv) = values.split_at_mut(L);
            let sk = &mut s[r0 + 1..r0 + D];
            let d = Self::rod_delta(rod, D, q);
            c[r0] = rod_with_stiffness(D, d, rod.length, lambda[r0], jv, gv, sk);
            let mut w = [0.0; L];
            for i in 0..D {
                w[i] = self.inv_mass[rod.v[0] as usize + i];
                w[D + i] = self.inv_mass[rod.v[1] as usize + i];
            }
            drop_weak_terms(gv, sk, &w, keep);
            if JT {
                // the block's columns are the two particles' velocity coordinates
                let cols = std::array::from_fn(|k| if k < D { rod.v[0] + k as u32 } else { rod.v[1] + (k - D) as u32 });
                BlockJacobian::mul_t_block::<L>(cols, values, &lambda[r0..r0 + D], jt);
            }
        }
    }

    /// max over a run of rods of |C + reg λ| (the terms of [`System::max_constraint_residual`]),
    /// into the lanes `max` by constraint index mod 4.
    pub(super) fn rods_max_residual(
        &self,
        run: &RodRun,
        q: &[f64],
        layout: &BlockJacobian,
        lambda: &[f64],
        reg: f64,
        max: &mut [f64; 4],
    ) {
        for (k, rod) in self.rods[run.first..run.first + run.count].iter().enumerate() {
            let ci = run.ci0 + k;
            let c = rod_error(Self::rod_delta(rod, run.dim, q), rod.length);
            let lane = &mut max[ci % 4];
            *lane = f64::max(*lane, (c + reg * lambda[layout.constraint_row0(ci)]).abs());
        }
    }
}

/// Zeroes the stiffness rows g_k (rows of `g`, each as long as `w`) and their s_k for which
/// `keep(s_k, g_kᵀ W g_k)` is false; `w` holds W's diagonal at the row's coordinates.
#[inline(always)]
pub(super) fn drop_weak_terms(g: &mut [f64], s: &mut [f64], w: &[f64], keep: &impl Fn(f64, f64) -> bool) {
    for (row, sv) in g.chunks_exact_mut(w.len()).zip(s.iter_mut()) {
        let gwg: f64 = row.iter().zip(w).map(|(g, w)| g * g * w).sum();
        if !keep(*sv, gwg) {
            *sv = 0.0;
            row.fill(0.0);
        }
    }
}
