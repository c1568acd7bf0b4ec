//! `nsgs_ac` — nonsmooth Gauss–Seidel with a Newton per contact: the `nsgs` sweep
//! ([`super::nsgs`]) with each contact's problem (the others fixed) solved by a damped Newton on
//! its Alart–Curnier function (`alart_curnier::local_newton`; Siconos' NSGS with the
//! "AC" local solver, Acary, Brémond, Huber 2018, §4.1), which reaches the local solution in a
//! few steps where the projected fixed point creeps (a stiff W_αα, a large μ).

use super::nsgs::Sweeps;
use super::{ContactSolver, ContactSolverEntry};
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `nsgs_ac` (none beyond the stopping rule every solver gets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NsgsAcParams {}

impl Params for NsgsAcParams {}

impl From<NsgsAcParams> for Box<dyn ContactSolver> {
    fn from(_: NsgsAcParams) -> Self {
        Box::new(Sweeps::new(1.0, true))
    }
}

/// The registry entry of `nsgs_ac`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<NsgsAcParams>(
    "nsgs_ac",
    "nonsmooth Gauss-Seidel with a damped Newton on each contact's Alart-Curnier function (Alart & Curnier 1991)",
);
