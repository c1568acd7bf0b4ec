//! `psor` — projected successive over-relaxation: the NSGS sweep ([`super::nsgs`]) with each
//! contact's update relaxed, r_α ← P_K(ω r_α^GS + (1 − ω) r_α) (Cottle, Pang & Stone 1992,
//! §5.2, for LCPs; on the cone as in Siconos' NSGS with relaxation: the projection keeps an
//! over-relaxed update, ω > 1, in the cone). ω = 1 is NSGS.

use super::nsgs::Sweeps;
use super::{ContactSolver, ContactSolverEntry};
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of `psor`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PsorParams {
    /// relaxation of each contact's update (1: nsgs; < 1 under-, > 1 over-relaxed)
    #[schemars(extend("unit" = "1", "exclusiveMinimum" = 0, "exclusiveMaximum" = 2))]
    pub omega: f64,
}

impl Default for PsorParams {
    fn default() -> Self {
        PsorParams { omega: 1.3 }
    }
}

impl Params for PsorParams {}

impl From<PsorParams> for Box<dyn ContactSolver> {
    fn from(p: PsorParams) -> Self {
        Box::new(Sweeps::new(p.omega, false))
    }
}

/// The registry entry of `psor`.
pub const ENTRY: ContactSolverEntry = ContactSolverEntry::of::<PsorParams>(
    "psor",
    "projected SOR on the Coulomb cone: the nsgs sweep with relaxation omega (Cottle, Pang & Stone 1992)",
);
