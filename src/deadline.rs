//! The wall-clock deadline of the cell running on this thread (`limits.cell_seconds`), read by
//! the loops inside one step — iterative linear solvers, contact solvers, projected sweeps, the
//! constraint-space solves of steppers with many substeps or iterations — so that one expensive
//! step cannot overrun the budget: the runner checks the clock between steps, these within them.
//! Thread-local because a cell runs on one thread from start to end; none is set outside a cell.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// How often (in iterations) a loop reads the clock: reading it costs about 25 ns, an iteration
/// of the cheapest loop on the smallest system about as much, so the overrun stays within this
/// many iterations and the overhead below a few per cent.
pub const EVERY: usize = 32;

/// The deadline set for this thread until dropped (then the previous one is back).
pub struct Guard(Option<Instant>);

impl Drop for Guard {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.0));
    }
}

/// Sets this thread's deadline to `at` (None: no deadline) until the guard drops.
#[must_use = "the deadline lasts as long as the guard"]
pub fn set(at: Option<Instant>) -> Guard {
    Guard(DEADLINE.with(|d| d.replace(at)))
}

/// Whether this thread's deadline has passed.
pub fn passed() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|at| Instant::now() >= at))
}

/// Whether this thread's deadline has passed, read at every [`EVERY`]-th `iteration` only
/// (false at the others): the loops' check, which they turn into their own error (a linear
/// solver's `SolveError::TimeBudget`).
pub fn passed_at(iteration: usize) -> bool {
    iteration.is_multiple_of(EVERY) && passed()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    #[test]
    fn a_deadline_holds_while_its_guard_lives_and_only_on_its_thread() {
        assert!(!super::passed(), "no deadline outside a cell");
        {
            let _g = super::set(Some(Instant::now() - Duration::from_secs(1)));
            assert!(super::passed());
            assert!(super::passed_at(64) && !super::passed_at(63));
            assert!(!std::thread::spawn(super::passed).join().unwrap(), "another thread has none");
            {
                let _inner = super::set(None);
                assert!(!super::passed());
            }
            assert!(super::passed(), "the outer deadline is back");
        }
        assert!(!super::passed());
    }
}
