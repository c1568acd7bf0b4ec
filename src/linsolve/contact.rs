//! The contact solvers ([`crate::friction::solvers`]) on the solver axis: each is a solver entry
//! that accepts only contact problems ([`SystemKind::Contact`]), so a config lists `nsgs` or
//! `pjacobi` next to `gauss_seidel` for `pgs`, and the grid pairs them by the kind of system alone.
//! The entry's solver is a carrier: `pgs` takes the contact solver out of it
//! ([`LinearSolver::into_contact`]) and runs it on each step's frictional contact problem; as a
//! linear solver it refuses every operator.

use super::registry::{Footprint, SolverEntry, SolverKind, SystemKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo};
use crate::friction::solvers::{CONTACT_SOLVERS, ContactSolver, ContactSolverEntry};
use crate::params::Resolved;

/// A contact solver carried on the solver axis.
pub struct ContactOnly {
    name: &'static str,
    inner: Box<dyn ContactSolver>,
}

const REFUSED: &str = "a contact solver solves frictional contact problems only (it pairs with pgs)";

impl LinearSolver for ContactOnly {
    fn name(&self) -> &'static str {
        self.name
    }

    fn into_contact(self: Box<Self>) -> Option<Box<dyn ContactSolver>> {
        Some(self.inner)
    }

    fn prepare(&mut self, _: &Operator) -> Result<(), SolveError> {
        Err(SolveError::NotApplicable { solver: self.name, reason: REFUSED })
    }

    fn solve(&mut self, _: &Operator, _: &[f64], _: &mut [f64]) -> Result<SolveInfo, SolveError> {
        Err(SolveError::NotApplicable { solver: self.name, reason: REFUSED })
    }
}

/// Builds the carrier of the contact solver whose parameters `p` are (each solver has its own
/// parameter type, so the type names the solver).
fn build(p: &Resolved) -> Box<dyn LinearSolver> {
    match CONTACT_SOLVERS.iter().find(|e| (e.owns)(p)) {
        Some(e) => Box::new(ContactOnly { name: e.name, inner: (e.build)(p) }),
        None => panic!("contact-solver parameters of no registered contact solver: a bug in a registry entry"),
    }
}

/// The bytes a contact solver keeps on a problem: W's values and indices once more (each step's
/// problem) and about eight vectors per row.
fn memory(f: &Footprint) -> u64 {
    f.sparse(16, 8 * 8)
}

const fn entry(e: &ContactSolverEntry) -> SolverEntry {
    SolverEntry {
        name: e.name,
        summary: e.summary,
        kind: SolverKind::Iterative,
        accepts: &[SystemKind::Contact],
        params: e.params,
        build,
        memory,
    }
}

/// Every contact solver as a solver entry, in [`CONTACT_SOLVERS`] order (derived from that list:
/// a new contact solver is one file and one name in it).
pub const CONTACT_ENTRIES: [SolverEntry; CONTACT_SOLVERS.len()] = {
    let mut out = [entry(&CONTACT_SOLVERS[0]); CONTACT_SOLVERS.len()];
    let mut i = 1;
    while i < out.len() {
        out[i] = entry(&CONTACT_SOLVERS[i]);
        i += 1;
    }
    out
};
