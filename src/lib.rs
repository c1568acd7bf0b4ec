//! tinkertoy — a research testbed for constrained dynamics.
//!
//! It answers, with numbers, which constraint formulation, linear solver and time integrator give
//! the accuracy a mechanism needs at the lowest cost. The layers, bottom up:
//!
//! - [`model`]: bodies, applied forces, the layout of q and v, energy;
//! - [`constraint`]: C(q), J and J̇v per constraint type, written once (Witkin 1997, §4);
//! - [`sparse`]: the block-sparse Jacobian, J·x, Jᵀ·y and the J W Jᵀ assembly plan;
//! - [`scene`]: parametrised mechanisms with consistent initial states and references;
//! - [`params`]: the parameter tables every registry shares.
//!
//! The math and the architecture are described in DESIGN.md; every kernel cites its equation.

// `!(x > 0.0)` is used on purpose throughout: unlike `x <= 0.0` it is true for NaN, so a
// non-finite value is treated as a failure rather than passing a check.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

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

pub mod constraint;
pub mod contact;
pub mod experiment;
pub mod formulation;
pub mod integrator;
pub mod linsolve;
pub mod metrics;
pub mod model;
pub mod params;
pub mod report;
pub mod scene;
pub mod sparse;
pub mod special;
pub mod stabilization;
pub mod validate;
