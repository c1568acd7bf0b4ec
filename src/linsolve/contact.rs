//! The contact solvers ([`crate::friction::solvers`]) on the solver axis: each is a solver entry
//! that accepts only contact problems ([`SystemKind::Contact`]), so a config lists `nsgs` or
//! `pjacobi` next to `gauss_seidel` for `pgs`, and the grid pairs them by the kind of system alone.
//! The entry's solver is a carrier: `pgs` takes the contact solver out of it
//! ([`LinearSolver::into_contact`]) and runs it on each step's frictional contact problem; as a
//! linear solver it refuses every operator.

use super::registry::{Footprint, SolverEntry, SolverKind, SystemKind};
use super::{LinearSolver, Operator, SolveError, SolveInfo};
use crate::friction::solvers::{CONTACT_SOLVERS, ContactSolver};
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

fn build<const I: usize>(p: &Resolved) -> Box<dyn LinearSolver> {
    let e = &CONTACT_SOLVERS[I];
    Box::new(ContactOnly { name: e.name, inner: (e.build)(p) })
}

/// The bytes a contact solver keeps on a problem: W's values and indices once more (each step's
/// problem) and about eight vectors per row.
fn memory(f: &Footprint) -> u64 {
    f.sparse(16, 8 * 8)
}

const fn entry<const I: usize>() -> SolverEntry {
    let e = &CONTACT_SOLVERS[I];
    SolverEntry {
        name: e.name,
        summary: e.summary,
        kind: SolverKind::Iterative,
        accepts: &[SystemKind::Contact],
        params: e.params,
        build: build::<I>,
        memory,
    }
}

/// Every contact solver as a solver entry, in [`CONTACT_SOLVERS`] order.
pub const CONTACT_ENTRIES: [SolverEntry; 10] = [
    entry::<0>(),
    entry::<1>(),
    entry::<2>(),
    entry::<3>(),
    entry::<4>(),
    entry::<5>(),
    entry::<6>(),
    entry::<7>(),
    entry::<8>(),
    entry::<9>(),
];

// Every contact solver has its entry above.
const _: () = assert!(CONTACT_SOLVERS.len() == CONTACT_ENTRIES.len());
