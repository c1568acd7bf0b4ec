//! tinkertoy — a research testbed for constrained dynamics.
//!
//! It answers, with numbers, which constraint formulation, linear solver and time integrator give
//! the accuracy a mechanism needs at the lowest cost. The layers, bottom up (each uses only the
//! ones above it in this list; `tests/conformance/layers.rs` checks every import):
//!
//! - [`special`], [`params`], [`metrics`], [`input`], [`deadline`], [`expr`], [`large_pages`]:
//!   special functions, typed registry parameters, pure functions of trajectories, reading YAML
//!   inputs with located errors, the running cell's wall-clock deadline, expressions in t
//!   (prescribed motions), and the binary's allocator (large blocks on huge pages);
//! - [`model`]: bodies, applied forces, energy, model errors;
//! - [`constraint`]: C(q), J and J̇v per constraint type, written once (Witkin 1997, §4);
//! - [`sparse`]: the block-sparse Jacobian, J·x, Jᵀ·y and the J W Jᵀ assembly plan;
//! - [`contact`]: shapes, planes and the narrow phase;
//! - [`system`]: the hub — bodies, forces, constraints and contacts of one mechanism, the
//!   layout of q and v, q ⊕ h v;
//! - [`friction`]: frictional contact problems as data (FCLIB), the Coulomb cone, the
//!   natural-map residual and the contact-solver axis;
//! - [`linsolve`]: linear solvers for J W Jᵀ and Jᵀ M J, and their counters;
//! - [`normal_solve`]: the constraint-space solve J W Jᵀ λ = b the Cartesian methods share;
//! - [`integrator`]: the second-order ODE trait and the time integrators;
//! - [`multibody`]: joint trees — the spanning tree of the constraint graph, joint coordinates,
//!   the articulated-body algorithm;
//! - [`scene`]: parametrised mechanisms with consistent initial states, references and named
//!   outputs ([`scene::Output`]);
//! - [`formulation`]: what λ means and which system is solved (ODE formulations and steppers);
//! - [`stabilization`]: post-step corrections;
//! - [`registry`]: every item a config can name, as one value an outside crate extends;
//! - [`experiment`], [`report`], [`validate`]: configs and cells (the time axis, the runner, what
//!   a run measures: [`experiment::observe`], [`experiment::measure`]), reports, and the scorecard;
//! - [`commands`], [`cli`]: the command line, [`cli::main_with`] a registry.
//!
//! The math and the architecture are described in `docs/design.md`; every kernel cites its equation.
//!
//! Running one cell from code — the pendulum with `force` + RK4, states, multipliers and the
//! output `theta` recorded every 0.1 s, and the upward crossings of θ = 0 located:
//!
//! ```
//! use tinkertoy::experiment::{CellSpec, Direction, run};
//! use tinkertoy::integrator::Control;
//! use tinkertoy::params::Scalar;
//! use tinkertoy::scene::registry as scenes;
//!
//! let scene = scenes::find("pendulum").unwrap().build_default(&[("theta0", Scalar::Num(1.0))]).unwrap();
//! let cell = CellSpec::named("force", &[], "dense_lu", &[], Some("rk4"), Control::Fixed { h: 0.01 }, 3.0)
//!     .unwrap()
//!     .sampled(0.1)
//!     .recording()
//!     .observing(&scene, &["theta"])
//!     .unwrap()
//!     .with_event(0, 0.0, Direction::Up);
//! let result = run(&scene, &cell);
//! assert!(result.summary.status.is_ok());
//! let last = result.samples.last().unwrap();
//! let (theta, tension) = (last.outputs[0], -last.lambda[0]); // [rad], [N]
//! // RK4 at h = 0.01 s against the exact solution (reference error in rad).
//! assert!(last.reference_error.unwrap() < 1e-6, "{theta}");
//! assert!(tension > 0.0);
//! // The first upward pass through the vertical is at 3/4 of the exact period.
//! let period = scene.reference.as_ref().unwrap().period().unwrap();
//! assert!((result.events[0].times[0] - 0.75 * period).abs() < 1e-4);
//! ```

// `!(x > 0.0)` is used on purpose throughout: unlike `x <= 0.0` it is true for NaN, so a
// non-finite value is treated as a failure rather than passing a check.
#![allow(clippy::neg_cmp_op_on_partial_ord)]
#![deny(missing_docs)]
// The fence: `pub` is the library API (reachable from the crate root, documented); everything
// else is `pub(crate)` or narrower, so an item marked `pub` that no outside crate can reach is
// an error.
#![deny(unreachable_pub)]

/// Declares the item files of one registry axis and its list, from one list of file names: each
/// name is a public module whose `ENTRY` goes into the list, so adding an item is one new file
/// and one name here.
macro_rules! registry {
    ($(#[$meta:meta])* $vis:vis const $list:ident: &[$entry:ty] = [$($item:ident),+ $(,)?];) => {
        $(pub mod $item;)+
        $(#[$meta])*
        $vis const $list: &[$entry] = &[$($item::ENTRY),+];
    };
}

pub mod cli;
pub mod commands;
pub mod constraint;
pub mod contact;
pub mod deadline;
pub mod experiment;
pub mod expr;
pub mod formulation;
pub mod friction;
pub mod input;
pub mod integrator;
pub mod large_pages;
pub mod linsolve;
pub mod metrics;
pub mod model;
pub mod multibody;
pub mod normal_solve;
pub mod params;
pub mod registry;
pub mod report;
pub mod scene;
pub mod sparse;
pub mod special;
pub mod stabilization;
pub mod system;
pub mod validate;
