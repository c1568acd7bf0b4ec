//! Parameter tables, read from every registry that has them: each default lies in its own
//! declared domain (a table that lists `= 0 (a finite number > 0)` is a bug nothing else would
//! catch), and giving a parameter its default explicitly resolves exactly as giving nothing.

use tinkertoy::formulation::registry::FORMULATIONS;
use tinkertoy::linsolve::registry::SOLVERS;
use tinkertoy::params::ParamTable;
use tinkertoy::scene::registry::SCENES;
use tinkertoy::stabilization::registry::STABILIZERS;

fn tables() -> Vec<(String, ParamTable)> {
    let mut out = Vec::new();
    out.extend(SCENES.iter().map(|e| (format!("scene {}", e.name), e.params)));
    out.extend(FORMULATIONS.iter().map(|e| (format!("formulation {}", e.name), e.params)));
    out.extend(SOLVERS.iter().map(|e| (format!("solver {}", e.name), e.params)));
    out.extend(STABILIZERS.iter().map(|e| (format!("stabilizer {}", e.name), e.params)));
    out.extend(
        tinkertoy::friction::solvers::CONTACT_SOLVERS.iter().map(|e| (format!("contact solver {}", e.name), e.params)),
    );
    out
}

#[test]
fn every_default_lies_in_its_domain_and_resolves_to_the_default() {
    for (item, table) in tables() {
        let specs = (table.specs)();
        for s in &specs {
            assert!(
                s.domain.admits(s.default),
                "{item}: default of `{}` = {} is outside {}",
                s.name,
                s.default,
                s.domain
            );
            assert!(!s.doc.is_empty(), "{item}: parameter `{}` has no description", s.name);
            assert!(!s.unit.is_empty(), "{item}: parameter `{}` has no unit (\"1\" if dimensionless)", s.name);
        }
        // One at a time: some fields are alternatives to each other (force's (ks, kd) or
        // (omega, zeta)), so all of them given together is rightly refused.
        let implicit = (table.values)(&table.defaults());
        for s in &specs {
            let one = [(s.name.clone(), s.default)];
            let explicit = (table.resolve)(&item, &one)
                .unwrap_or_else(|e| panic!("{item}: its default of `{}` does not resolve: {e}", s.name));
            assert_eq!(
                (table.values)(&explicit),
                implicit,
                "{item}: `{}` given as its default resolves differently",
                s.name
            );
        }
        for s in &specs {
            let listed = match s.default {
                tinkertoy::params::Scalar::Num(x) => serde_json::json!(x),
                tinkertoy::params::Scalar::Bool(b) => serde_json::json!(b),
            };
            let value = &implicit[s.name.as_str()];
            assert!(
                value == &listed || value.as_f64().zip(listed.as_f64()).is_some_and(|(a, b)| a == b),
                "{item}: `{}` is listed with default {listed} but resolves to {value}",
                s.name
            );
        }
    }
}
