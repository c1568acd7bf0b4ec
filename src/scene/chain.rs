//! Hanging chain: N unit-spaced point masses joined by rigid links, the first pinned at the origin,
//! released at rest along the +x axis (the long-chain benchmark; docs/design.md §5).
//!
//! Rows: 2 (pin) + N − 1 (links). The last mass is `end_ratio` × m (a heavy payload; 1 by default).
//! Energy scale: Σ m_i g · depth of each mass when hanging straight down,
//! m g ℓ (N(N − 1)/2 + (r − 1)(N − 1)), since E₀ = 0 at the horizontal start.

use super::registry::{SceneEntry, SceneParams};
use super::{Output, Quantity, AngleChain, EnergyScale, Scene, SceneError};
use crate::constraint::{Distance, Pin};
use crate::model::{Body, Force};
use crate::system::System;
use crate::params::Params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the chain scene.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ChainParams {
    /// number of particles (the first is pinned)
    #[schemars(range(min = 2, max = 10_000_000))]
    pub n: usize,
    /// link length
    #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
    pub link: f64,
    /// mass of each particle (the last: end_ratio times it)
    #[schemars(extend("unit" = "kg", "exclusiveMinimum" = 0))]
    pub mass: f64,
    /// downward gravity g
    #[schemars(extend("unit" = "m/s^2", "exclusiveMinimum" = 0))]
    pub gravity: f64,
    /// mass of the last particle over `mass`: a heavy payload at the free end (mass-ratio stress)
    #[schemars(range(max = 1e6), extend("unit" = "1", "exclusiveMinimum" = 0))]
    pub end_ratio: f64,
}

impl Default for ChainParams {
    fn default() -> Self {
        ChainParams { n: 10, link: 0.1, mass: 1.0, gravity: 9.81, end_ratio: 1.0 }
    }
}

impl Params for ChainParams {}

impl SceneParams for ChainParams {
    fn build(&self) -> Result<Scene, SceneError> {
        build(self)
    }

    fn size(&self) -> Option<super::registry::SceneSize> {
        // Rows: 2 (pin) + n − 1 (links).
        let n = self.n;
        Some(super::registry::SceneSize { bodies: n, nq: 2 * n, ndof: 2 * n, constraints: n, rows: n + 1 })
    }
}

/// The registry entry of this scene.
pub const ENTRY: SceneEntry =
    SceneEntry::of::<ChainParams>("chain", "N particles, first pinned, rigid links, released horizontal")
        .with_test_size(&[("n", 6.0)]);

/// Builds the chain scene.
pub fn build(p: &ChainParams) -> Result<Scene, SceneError> {
    let (n, link, m, g) = (p.n, p.link, p.mass, p.gravity);
    let mut system = System::new();
    let mut q0 = Vec::with_capacity(2 * n);
    for i in 0..n {
        system.add_body(Body::particle2(if i + 1 == n { m * p.end_ratio } else { m }))?;
        q0.extend_from_slice(&[i as f64 * link, 0.0]);
    }
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Pin::new(0, 2, [0.0; 3])))?;
    for i in 1..n {
        system.add_constraint(Box::new(Distance::between(i, i - 1, 2, link)))?;
    }
    let nf = n as f64;
    Ok(Scene {
        name: "chain".into(),
        system,
        q0,
        v0: vec![0.0; 2 * n],
        reference: None,
        energy_scale: EnergyScale {
            // The end mass adds (r − 1) m g l (N − 1); exactly zero for r = 1.
            joules: m * g * link * nf * (nf - 1.0) / 2.0 + (p.end_ratio - 1.0) * m * g * link * (nf - 1.0),
            definition: "sum of m_i g * depth of each mass hanging straight down = m g l (N(N-1)/2 + (r-1)(N-1)), r = end_ratio".into(),
        },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], true, vec![link; n - 1]))),
        branch: Vec::new(),
        outputs: vec![
            Output::new("end_x", "m", "x of the free end (last mass)", Quantity::Coord { body: n - 1, index: 0 }),
            Output::new("end_y", "m", "y of the free end (last mass)", Quantity::Coord { body: n - 1, index: 1 }),
        ],
    })
}
