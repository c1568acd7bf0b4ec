//! `pgs`'s step as a frictional contact problem in FCLIB's local form: assembled into a
//! workspace kept across steps for the cell's contact solver, or as a new problem for `dump`.

use super::{Pgs, RowKind};
use crate::friction::ProblemError;

/// The step's contact problem and what assembles it, refilled in place at every step.
#[derive(Default)]
pub(super) struct ContactWork {
    pub(super) problem: Option<crate::friction::LocalProblem>,
    pub(super) r: Vec<f64>,
    pub(super) by_col: Vec<Vec<usize>>,
    pub(super) triplets: Vec<crate::friction::Triplet>,
}

impl Pgs<'_> {
    /// The last step's frictional contact problem in FCLIB's local form (Acary et al. 2014): per
    /// contact the normal and two friction rows (one in the plane: a 2D problem), W = J_c M⁻¹ J_cᵀ, q = J_c v* − target (the
    /// normal rows' bias: speculative gap, Baumgarte push-out, restitution), μ; the impulses this
    /// step found as its first guess. Refused for a scene with equality rows (that problem is
    /// the mixed one, with bilateral rows).
    pub fn last_contact_problem(&self) -> Result<crate::friction::LocalProblem, ProblemError> {
        let m = self.core.ns.system.nrows();
        if m > 0 {
            return Err(ProblemError::Unavailable(format!(
                "the scene has {m} equality rows besides its contacts: its step is a mixed problem (bilateral rows), which is not written as a local one"
            )));
        }
        if self.free.len() != self.rows.len() {
            return Err(ProblemError::Unavailable("no step has been taken".into()));
        }
        let mut problem = empty_problem();
        self.assemble(&mut problem, &mut Vec::new(), &mut Vec::new());
        problem.guesses = vec![self.rows.iter().map(|r| r.lambda).collect()];
        Ok(problem)
    }

    /// Fills `p` in place with the step's problem (W, q, μ, dimension; its name and guesses left
    /// as they are), `by_col` and `t` the assembly's workspaces.
    pub(super) fn assemble(&self, p: &mut crate::friction::LocalProblem, by_col: &mut Vec<Vec<usize>>, t: &mut Vec<crate::friction::Triplet>) {
        let rows = &self.rows;
        // W_ij = J_i · (W J_jᵀ) over the columns the two rows share: rows grouped by column.
        let n = self.core.ns.system.ndof();
        by_col.resize_with(n, Vec::new);
        by_col.iter_mut().for_each(Vec::clear);
        for (i, r) in rows.iter().enumerate() {
            for &c in &r.cols[..r.l] {
                by_col[c as usize].push(i);
            }
        }
        t.clear();
        for (c, touching) in by_col.iter().enumerate() {
            for &i in touching {
                let ji = rows[i].cols[..rows[i].l].iter().position(|&x| x as usize == c).map_or(0.0, |k| rows[i].j[k]);
                for &j in touching {
                    let k = rows[j].cols[..rows[j].l].iter().position(|&x| x as usize == c).expect("row j touches c");
                    t.push((i, j, t.len(), ji * rows[j].wj[k]));
                }
            }
        }
        let count = rows.len();
        p.w.fill_from_triplets(count, count, t);
        p.q.clear();
        p.q.extend(rows.iter().zip(&self.free).map(|(r, f)| f - r.target));
        let d = self.per_contact;
        p.dim = d;
        p.mu.clear();
        p.mu.extend((0..count / d).map(|k| if let RowKind::Friction { mu, .. } = rows[d * k + 1].kind { mu } else { 0.0 }));
    }
}

/// An empty 3D problem named for `pgs`, to be filled by [`Pgs::assemble`].
pub(super) fn empty_problem() -> crate::friction::LocalProblem {
    crate::friction::LocalProblem {
        name: "pgs step".into(),
        dim: 3,
        w: crate::friction::Csr { nrows: 0, ncols: 0, ptr: vec![0], idx: Vec::new(), val: Vec::new() },
        q: Vec::new(),
        mu: Vec::new(),
        guesses: Vec::new(),
    }
}
