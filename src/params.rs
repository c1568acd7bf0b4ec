//! Named numeric parameters shared by every registry (scenes today; formulations, solvers and
//! integrators use the same description).
//!
//! A registry item declares its parameters as a static table of [`ParamSpec`]; user input is a list
//! of `(name, value)` pairs that [`resolve`] checks against that table. Errors name the field, the bad
//! value and the valid choices, so the command line can print them as one line.

use std::collections::BTreeMap;
use std::fmt;

/// The admissible values of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    /// Any finite real number.
    Real,
    /// A finite real number strictly greater than zero.
    Positive,
    /// A finite real number greater than or equal to zero.
    NonNegative,
    /// An integer in `[min, max]`.
    Integer {
        /// Smallest admissible value.
        min: i64,
        /// Largest admissible value.
        max: i64,
    },
}

impl Domain {
    fn admits(self, x: f64) -> bool {
        if !x.is_finite() {
            return false;
        }
        match self {
            Domain::Real => true,
            Domain::Positive => x > 0.0,
            Domain::NonNegative => x >= 0.0,
            Domain::Integer { min, max } => x.fract() == 0.0 && x >= min as f64 && x <= max as f64,
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Domain::Real => write!(f, "a finite number"),
            Domain::Positive => write!(f, "a finite number > 0"),
            Domain::NonNegative => write!(f, "a finite number >= 0"),
            Domain::Integer { min, max } => write!(f, "an integer in [{min}, {max}]"),
        }
    }
}

/// Declaration of one parameter of a registry item.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Key used in configs and listings.
    pub name: &'static str,
    /// Value used when the user gives none.
    pub default: f64,
    /// Physical unit (`"m"`, `"rad"`, `"1"` for dimensionless, …).
    pub unit: &'static str,
    /// Admissible values.
    pub domain: Domain,
    /// One line saying what the parameter does.
    pub doc: &'static str,
}

/// A parameter value that [`resolve`] rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// The name is not a parameter of this item.
    #[error("unknown parameter `{name}` of {item}; expected one of: {choices}")]
    Unknown {
        /// The registry item (e.g. `scene pendulum`).
        item: String,
        /// The unknown key.
        name: String,
        /// Comma-separated valid keys.
        choices: String,
    },
    /// The value is outside the parameter's domain.
    #[error("{item}: parameter `{name}` = {value} is invalid; expected {domain}")]
    OutOfDomain {
        /// The registry item.
        item: String,
        /// The parameter.
        name: String,
        /// The rejected value.
        value: f64,
        /// Description of the admissible values.
        domain: String,
    },
    /// The same key was given twice.
    #[error("{item}: parameter `{name}` given twice")]
    Duplicate {
        /// The registry item.
        item: String,
        /// The repeated key.
        name: String,
    },
}

/// Resolved parameter values: every declared parameter has a value (given or default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamValues {
    values: BTreeMap<&'static str, f64>,
    given: Vec<&'static str>,
}

impl ParamValues {
    /// The value of `name`.
    ///
    /// # Panics
    /// If `name` was not declared: that is a bug in the item's own code, not a user error.
    pub fn get(&self, name: &str) -> f64 {
        match self.values.get(name) {
            Some(v) => *v,
            None => panic!("parameter `{name}` is not declared by this item"),
        }
    }

    /// The value of an integer parameter (its domain guarantees it is integral and in range).
    pub fn get_usize(&self, name: &str) -> usize {
        self.get(name) as usize
    }

    /// Whether the user gave `name` explicitly (rather than taking the default).
    pub fn given(&self, name: &str) -> bool {
        self.given.contains(&name)
    }

    /// Iterates over `(name, value)` in name order (for provenance and listings).
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.values.iter().map(|(k, v)| (*k, *v))
    }
}

/// Checks `given` against `specs` and fills defaults. `item` names the owner in error messages.
pub fn resolve(item: &str, specs: &[ParamSpec], given: &[(String, f64)]) -> Result<ParamValues, ParamError> {
    let mut values: BTreeMap<&'static str, f64> = specs.iter().map(|s| (s.name, s.default)).collect();
    let mut seen: Vec<&'static str> = Vec::new();
    for (name, value) in given {
        let Some(spec) = specs.iter().find(|s| s.name == name) else {
            let choices = if specs.is_empty() {
                "(this item has no parameters)".to_string()
            } else {
                specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
            };
            return Err(ParamError::Unknown { item: item.into(), name: name.clone(), choices });
        };
        if seen.contains(&spec.name) {
            return Err(ParamError::Duplicate { item: item.into(), name: name.clone() });
        }
        seen.push(spec.name);
        if !spec.domain.admits(*value) {
            return Err(ParamError::OutOfDomain {
                item: item.into(),
                name: name.clone(),
                value: *value,
                domain: spec.domain.to_string(),
            });
        }
        values.insert(spec.name, *value);
    }
    Ok(ParamValues { values, given: seen })
}

/// Formats a number for people: plain for moderate magnitudes, scientific otherwise.
pub fn fmt_num(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e6) {
        format!("{x:e}")
    } else {
        format!("{}", (x * 1e12).round() / 1e12)
    }
}

/// Formats a parameter table as indented lines `name = default unit  (domain) doc` for listings.
pub fn describe(specs: &[ParamSpec]) -> String {
    let mut out = String::new();
    for s in specs {
        let unit = if s.unit == "1" { String::new() } else { format!(" {}", s.unit) };
        out.push_str(&format!("    {:<20} = {}{}  ({}) {}\n", s.name, fmt_num(s.default), unit, s.domain, s.doc));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec { name: "length", default: 1.0, unit: "m", domain: Domain::Positive, doc: "rod length" },
        ParamSpec { name: "n", default: 10.0, unit: "1", domain: Domain::Integer { min: 2, max: 100 }, doc: "count" },
    ];

    #[test]
    fn defaults_fill_missing_values() {
        let p = resolve("scene x", SPECS, &[("n".into(), 3.0)]).unwrap();
        assert_eq!(p.get("length"), 1.0);
        assert_eq!(p.get_usize("n"), 3);
    }

    #[test]
    fn unknown_names_list_the_valid_choices() {
        let e = resolve("scene x", SPECS, &[("lenght".into(), 3.0)]).unwrap_err();
        assert_eq!(e.to_string(), "unknown parameter `lenght` of scene x; expected one of: length, n");
    }

    #[test]
    fn out_of_domain_values_name_the_domain() {
        let e = resolve("scene x", SPECS, &[("length".into(), -1.0)]).unwrap_err();
        assert!(e.to_string().contains("`length` = -1 is invalid; expected a finite number > 0"));
        let e = resolve("scene x", SPECS, &[("n".into(), 2.5)]).unwrap_err();
        assert!(e.to_string().contains("an integer in [2, 100]"));
        assert!(resolve("scene x", SPECS, &[("length".into(), f64::NAN)]).is_err());
    }
}
