//! Formulations, read from the registry: the kind an entry declares (ODE or stepper) is what it
//! builds, on the first registered scene (at test size) it applies to, with a solver it pairs
//! with. The grid pairs cells by the declared kind alone, so a mismatch would run nothing or the
//! wrong thing.

use tinkertoy::formulation::Dynamics;
use tinkertoy::formulation::registry::{FORMULATIONS, FormulationKind};
use tinkertoy::linsolve::registry::SOLVERS;
use tinkertoy::scene::registry::SCENES;

#[test]
fn every_formulation_builds_the_kind_its_entry_declares() {
    for f in FORMULATIONS {
        let solver = SOLVERS
            .iter()
            .find(|s| f.pairs_with(s))
            .unwrap_or_else(|| panic!("{}: no registered solver takes a {}", f.name, f.system.describe()));
        let built = SCENES.iter().find_map(|entry| {
            let scene = entry.build_small().unwrap();
            let kind = match (f.build)(&f.params.defaults(), &scene, (solver.build)(&solver.params.defaults())).ok()? {
                Dynamics::Ode(mut ode) => {
                    if ode.dae().is_some() {
                        FormulationKind::Dae
                    } else {
                        FormulationKind::Ode
                    }
                }
                Dynamics::Stepper(_) => FormulationKind::Stepper,
            };
            Some((entry.name, kind))
        });
        let Some((scene, kind)) = built else { panic!("{}: applies to no registered scene", f.name) };
        assert_eq!(kind, f.kind, "{} declares {:?} but builds {kind:?} on {scene}", f.name, f.kind);
    }
}
