//! Hanging chain: N unit-spaced point masses joined by rigid links, the first pinned at the origin,
//! released at rest along the +x axis (the long-chain benchmark of DESIGN.md §5).
//!
//! Rows: 2 (pin) + N − 1 (links). Energy scale: Σ m g · depth of each mass when hanging straight
//! down, Σ_i m g i ℓ = m g ℓ N(N − 1)/2, since E₀ = 0 at the horizontal start.

use super::{AngleChain, EnergyScale, Scene, SceneError};
use crate::constraint::{Distance, Pin};
use crate::model::{Body, Force, System};
use crate::params::{Domain, ParamSpec, ParamValues};

/// Parameters of the chain scene.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "n",
        default: 10.0,
        unit: "1",
        domain: Domain::Integer { min: 2, max: 10_000_000 },
        doc: "number of particles (the first is pinned)",
    },
    ParamSpec { name: "link", default: 0.1, unit: "m", domain: Domain::Positive, doc: "link length" },
    ParamSpec { name: "mass", default: 1.0, unit: "kg", domain: Domain::Positive, doc: "mass of each particle" },
    ParamSpec { name: "gravity", default: 9.81, unit: "m/s^2", domain: Domain::Positive, doc: "downward gravity g" },
];

/// Builds the chain scene.
pub fn build(p: &ParamValues) -> Result<Scene, SceneError> {
    let (n, link, m, g) = (p.get_usize("n"), p.get("link"), p.get("mass"), p.get("gravity"));
    let mut system = System::new();
    let mut q0 = Vec::with_capacity(2 * n);
    for i in 0..n {
        system.add_body(Body::particle2(m))?;
        q0.extend_from_slice(&[i as f64 * link, 0.0]);
    }
    system.add_force(Force::Gravity { g: [0.0, -g, 0.0] })?;
    system.add_constraint(Box::new(Pin::new(0, 2, [0.0; 3])))?;
    for i in 1..n {
        system.add_constraint(Box::new(Distance::between(i, i - 1, 2, link)))?;
    }
    let nf = n as f64;
    Ok(Scene {
        name: "chain",
        system,
        q0,
        v0: vec![0.0; 2 * n],
        reference: None,
        energy_scale: EnergyScale {
            joules: m * g * link * nf * (nf - 1.0) / 2.0,
            definition: "sum of m g * depth of each mass hanging straight down = m g l N(N-1)/2",
        },
        parametrization: Some(Box::new(AngleChain::new(0, [0.0, 0.0], true, vec![link; n - 1]))),
    })
}
