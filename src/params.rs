//! Typed parameters, one struct per registry item.
//!
//! Each scene, formulation, linear solver and stabilizer declares its parameters once, as a struct
//! that derives serde's `Deserialize`/`Serialize` and schemars' `JsonSchema`, with its defaults in
//! `Default`. Everything else is derived from that one declaration:
//!
//! - the doc comment of a field is its description; `#[schemars(extend("unit" = "m"))]` its unit;
//!   `#[schemars(range(min = …, max = …))]` or `extend("exclusiveMinimum" = 0)` its domain;
//! - the table `tinkertoy list` prints ([`specs`]) and the JSON Schema of a config are read off the
//!   generated schema;
//! - user input, `(name, value)` pairs from a config, is checked against that schema ([`resolve`]):
//!   an unknown name, a value outside its domain or of the wrong kind is one [`ParamError`] naming
//!   the field, the bad value and the valid choices, before anything runs;
//! - the checked values are deserialized into the struct, so the item's code reads typed fields
//!   (`p.length`, `p.substeps: usize`, `p.warm_start: bool`), never a string key.
//!
//! Cross-field rules (two mutually exclusive ways of giving the same quantity) live in
//! [`Params::check`], next to the struct.

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A value as written in a config: a number (integers included) or a boolean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A number.
    Num(f64),
    /// `true` or `false`.
    Bool(bool),
}

impl From<f64> for Scalar {
    fn from(x: f64) -> Self {
        Scalar::Num(x)
    }
}

impl From<bool> for Scalar {
    fn from(b: bool) -> Self {
        Scalar::Bool(b)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Num(x) => f.write_str(&fmt_num(*x)),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// The refusal of a quoted scalar where a number is expected, when its text reads as one.
pub fn quoted_number<E: de::Error>(text: &str) -> Option<E> {
    text.trim().parse::<f64>().is_ok().then(|| {
        E::custom(format!("`\"{}\"` is quoted, so it is text, not a number; write it without the quotes", short(text)))
    })
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or true/false")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(b))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Scalar, E> {
                Ok(Scalar::Num(x))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Scalar, E> {
                Ok(Scalar::Num(x as f64))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Scalar, E> {
                Ok(Scalar::Num(x as f64))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Scalar, E> {
                Err(quoted_number(s).unwrap_or_else(|| E::invalid_type(de::Unexpected::Str(s), &self)))
            }
        }
        d.deserialize_any(V)
    }
}

/// The admissible values of one parameter, as read off its schema.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    /// Any finite real number.
    Real,
    /// A finite real number strictly greater than zero.
    Positive,
    /// A finite real number greater than or equal to zero.
    NonNegative,
    /// A finite real number between two bounds.
    Interval {
        /// Lower bound.
        lo: f64,
        /// Whether the lower bound itself is excluded.
        lo_open: bool,
        /// Upper bound.
        hi: f64,
        /// Whether the upper bound itself is excluded.
        hi_open: bool,
    },
    /// An integer in `[min, max]`.
    Integer {
        /// Smallest admissible value.
        min: i64,
        /// Largest admissible value.
        max: i64,
    },
    /// `true` or `false`.
    Bool,
}

impl Domain {
    /// Whether `x` lies in the domain.
    pub fn admits(self, x: Scalar) -> bool {
        let x = match (self, x) {
            (Domain::Bool, Scalar::Bool(_)) => return true,
            (Domain::Bool, _) | (_, Scalar::Bool(_)) => return false,
            (_, Scalar::Num(x)) => x,
        };
        if !x.is_finite() {
            return false;
        }
        match self {
            Domain::Real => true,
            Domain::Positive => x > 0.0,
            Domain::NonNegative => x >= 0.0,
            Domain::Interval { lo, lo_open, hi, hi_open } => {
                (if lo_open { x > lo } else { x >= lo }) && (if hi_open { x < hi } else { x <= hi })
            }
            Domain::Integer { min, max } => x.fract() == 0.0 && x >= min as f64 && x <= max as f64,
            Domain::Bool => false,
        }
    }

    /// The domain of a property schema (`type`, `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`).
    fn of_schema(p: &serde_json::Value) -> Domain {
        let num = |k: &str| p.get(k).and_then(|v| v.as_f64());
        match p.get("type").and_then(|t| t.as_str()) {
            Some("boolean") => Domain::Bool,
            Some("integer") => Domain::Integer {
                min: num("minimum").map_or(i64::MIN, |x| x as i64),
                max: num("maximum").map_or(i64::MAX, |x| x as i64),
            },
            _ => {
                let (lo, lo_open) = match (num("exclusiveMinimum"), num("minimum")) {
                    (Some(x), _) => (x, true),
                    (None, Some(x)) => (x, false),
                    (None, None) => (f64::NEG_INFINITY, true),
                };
                let (hi, hi_open) = match (num("exclusiveMaximum"), num("maximum")) {
                    (Some(x), _) => (x, true),
                    (None, Some(x)) => (x, false),
                    (None, None) => (f64::INFINITY, true),
                };
                match (lo, lo_open, hi.is_finite()) {
                    (_, _, true) => Domain::Interval { lo, lo_open, hi, hi_open },
                    (x, _, false) if x == f64::NEG_INFINITY => Domain::Real,
                    (0.0, true, false) => Domain::Positive,
                    (0.0, false, false) => Domain::NonNegative,
                    _ => Domain::Interval { lo, lo_open, hi, hi_open },
                }
            }
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Domain::Real => write!(f, "a finite number"),
            Domain::Positive => write!(f, "a finite number > 0"),
            Domain::NonNegative => write!(f, "a finite number >= 0"),
            Domain::Interval { lo, lo_open, hi, hi_open } => {
                let (l, r) = (if *lo_open { '(' } else { '[' }, if *hi_open { ')' } else { ']' });
                let show = |x: f64| if x.is_finite() { fmt_num(x) } else { format!("{x}") };
                write!(f, "a finite number in {l}{}, {}{r}", show(*lo), show(*hi))
            }
            Domain::Integer { min, max } => write!(f, "an integer in [{min}, {max}]"),
            Domain::Bool => write!(f, "true or false"),
        }
    }
}

/// Description of one parameter, derived from its item's schema (for listings and messages).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// Key used in configs and listings.
    pub name: String,
    /// Value used when the user gives none.
    pub default: Scalar,
    /// Physical unit (`"m"`, `"rad"`, `"1"` for dimensionless, …).
    pub unit: String,
    /// Admissible values.
    pub domain: Domain,
    /// One line saying what the parameter does.
    pub doc: String,
}

/// The parameters of one registry item: a struct that is its own schema, with defaults.
pub trait Params:
    DeserializeOwned + Serialize + JsonSchema + Default + Clone + fmt::Debug + Send + Sync + 'static
{
    /// Rules between fields, checked after every field is in its domain; `given` lists the keys
    /// the user wrote. The message names the fields.
    fn check(&self, _given: &[&str]) -> Result<(), String> {
        Ok(())
    }

    /// Whether a cell with these parameters spreads its work over the run's thread pool, so that
    /// its times are wall time on several threads, not one core's (its report says so).
    fn on_threads(&self) -> bool {
        false
    }
}

/// The parameters of an item that has none.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

impl Params for NoParams {}

/// The parameter table of `P`, in declaration order, read off its JSON Schema.
pub fn specs<P: Params>() -> Vec<ParamSpec> {
    let schema = schemars::schema_for!(P);
    let Some(props) = schema.get("properties").and_then(|p| p.as_object()) else {
        return vec![];
    };
    props
        .iter()
        .map(|(name, p)| {
            let domain = Domain::of_schema(p);
            let default = match p.get("default") {
                Some(serde_json::Value::Bool(b)) => Scalar::Bool(*b),
                Some(v) => Scalar::Num(v.as_f64().unwrap_or(f64::NAN)),
                None => Scalar::Num(f64::NAN),
            };
            let text = |k: &str| p.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
            ParamSpec {
                name: name.clone(),
                default,
                // Counts and flags are dimensionless by nature; reals must state their unit.
                unit: match (domain, text("unit")) {
                    (Domain::Bool | Domain::Integer { .. }, u) if u.is_empty() => "1".into(),
                    (_, u) => u,
                },
                domain,
                doc: text("description"),
            }
        })
        .collect()
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
        value: Scalar,
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
    /// The values break a rule between fields.
    #[error("{item}: {message}")]
    Rule {
        /// The registry item.
        item: String,
        /// What is wrong, naming the fields.
        message: String,
    },
}

/// Checks `given` against `P`'s schema and returns the typed parameters (defaults for the rest).
/// `item` names the owner in error messages.
pub fn resolve<P: Params>(item: &str, given: &[(String, Scalar)]) -> Result<P, ParamError> {
    let table = specs::<P>();
    let mut object = serde_json::Map::new();
    let mut seen: Vec<&str> = Vec::new();
    for (name, value) in given {
        let Some(spec) = table.iter().find(|s| &s.name == name) else {
            let choices = if table.is_empty() {
                "(this item has no parameters)".to_string()
            } else {
                table.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
            };
            return Err(ParamError::Unknown { item: item.into(), name: name.clone(), choices });
        };
        if seen.contains(&spec.name.as_str()) {
            return Err(ParamError::Duplicate { item: item.into(), name: name.clone() });
        }
        seen.push(spec.name.as_str());
        if !spec.domain.admits(*value) {
            return Err(ParamError::OutOfDomain {
                item: item.into(),
                name: name.clone(),
                value: *value,
                domain: spec.domain.to_string(),
            });
        }
        let json = match (*value, spec.domain) {
            (Scalar::Bool(b), _) => serde_json::Value::Bool(b),
            // In the domain, so integral and in range.
            (Scalar::Num(x), Domain::Integer { .. }) => serde_json::Value::from(x as i64),
            (Scalar::Num(x), _) => serde_json::Value::from(x),
        };
        object.insert(name.clone(), json);
    }
    let p: P = serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| ParamError::Rule { item: item.into(), message: e.to_string() })?;
    p.check(&seen).map_err(|message| ParamError::Rule { item: item.into(), message })?;
    Ok(p)
}

/// Typed parameters behind a type-erased handle, with the values the user gave (for labels and
/// provenance).
#[derive(Clone)]
pub struct Resolved {
    value: Arc<dyn Any + Send + Sync>,
    given: Vec<(String, Scalar)>,
    on_threads: bool,
}

impl fmt::Debug for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resolved").field("given", &self.given).finish()
    }
}

impl Resolved {
    /// Wraps typed parameters (given: the keys and values the user wrote).
    pub fn new<P: Params>(p: P, given: Vec<(String, Scalar)>) -> Self {
        let on_threads = p.on_threads();
        Resolved { value: Arc::new(p), given, on_threads }
    }

    /// [`Params::on_threads`] of the typed parameters.
    pub fn on_threads(&self) -> bool {
        self.on_threads
    }

    /// The typed parameters.
    ///
    /// # Panics
    /// If `P` is not the type this was resolved as: a registry entry built with one parameter
    /// type and read with another, a bug in that entry rather than a user error.
    pub fn get<P: Params>(&self) -> &P {
        match self.value.downcast_ref::<P>() {
            Some(p) => p,
            None => panic!("parameters read as {} but resolved as another type", std::any::type_name::<P>()),
        }
    }

    /// Whether these are parameters of type `P`.
    pub fn holds<P: Params>(&self) -> bool {
        self.value.is::<P>()
    }

    /// The keys and values the user gave, in the order given.
    pub fn given(&self) -> &[(String, Scalar)] {
        &self.given
    }
}

/// Checks user values (`item` names the owner in messages) and returns typed parameters.
pub type ResolveFn = fn(item: &str, given: &[(String, Scalar)]) -> Result<Resolved, ParamError>;

/// The parameter declaration of a registry entry: its table and its resolver, for one type.
#[derive(Clone, Copy)]
pub struct ParamTable {
    /// The parameter table (for listings).
    pub specs: fn() -> Vec<ParamSpec>,
    /// Checks user values and returns the typed parameters behind a [`Resolved`].
    pub resolve: ResolveFn,
    /// The JSON Schema of the parameters (for editors).
    pub schema: fn() -> serde_json::Value,
    /// Every field of resolved parameters (given or default), as JSON.
    pub values: fn(&Resolved) -> serde_json::Value,
}

fn resolve_erased<P: Params>(item: &str, given: &[(String, Scalar)]) -> Result<Resolved, ParamError> {
    Ok(Resolved::new(resolve::<P>(item, given)?, given.to_vec()))
}

fn schema_of<P: Params>() -> serde_json::Value {
    schemars::schema_for!(P).to_value()
}

fn values_of<P: Params>(r: &Resolved) -> serde_json::Value {
    serde_json::to_value(r.get::<P>()).unwrap_or(serde_json::Value::Null)
}

impl ParamTable {
    /// The table of parameter type `P`.
    pub const fn of<P: Params>() -> Self {
        ParamTable { specs: specs::<P>, resolve: resolve_erased::<P>, schema: schema_of::<P>, values: values_of::<P> }
    }

    /// Resolves numeric overrides given as `(&str, value)` pairs (tests, benchmarks, scripts).
    pub fn with(&self, item: &str, given: &[(&str, Scalar)]) -> Result<Resolved, ParamError> {
        let g: Vec<(String, Scalar)> = given.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        (self.resolve)(item, &g)
    }

    /// Every parameter at its default.
    pub fn defaults(&self) -> Resolved {
        match (self.resolve)("defaults", &[]) {
            Ok(r) => r,
            Err(e) => panic!("the defaults of a parameter table must resolve: {e}"),
        }
    }
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
        let unit = if s.unit == "1" || s.unit.is_empty() { String::new() } else { format!(" {}", s.unit) };
        out.push_str(&format!("    {:<20} = {}{}  ({}) {}\n", s.name, s.default, unit, s.domain, s.doc));
    }
    out
}

/// A value for an error message: at most 40 characters, control characters escaped.
pub fn short(s: &str) -> String {
    let escaped: String = s.chars().flat_map(|c| c.escape_debug()).collect();
    if escaped.chars().count() > 40 { format!("{}…", escaped.chars().take(40).collect::<String>()) } else { escaped }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-parameter item for the tests.
    #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields, default)]
    struct Item {
        /// rod length
        #[schemars(extend("unit" = "m", "exclusiveMinimum" = 0))]
        length: f64,
        /// count
        #[schemars(range(min = 2, max = 100))]
        n: usize,
        /// a switch
        on: bool,
        /// a factor
        #[schemars(range(min = 0, max = 1))]
        beta: f64,
    }

    impl Default for Item {
        fn default() -> Self {
            Item { length: 1.0, n: 10, on: true, beta: 0.5 }
        }
    }

    impl Params for Item {}

    fn given(pairs: &[(&str, Scalar)]) -> Vec<(String, Scalar)> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn the_table_is_read_off_the_schema_in_declaration_order() {
        let t = specs::<Item>();
        let names: Vec<&str> = t.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["length", "n", "on", "beta"]);
        assert_eq!(t[0].domain, Domain::Positive);
        assert_eq!((t[0].unit.as_str(), t[0].doc.as_str()), ("m", "rod length"));
        assert_eq!(t[1].domain, Domain::Integer { min: 2, max: 100 });
        assert_eq!(t[1].default, Scalar::Num(10.0));
        assert_eq!(t[2].domain, Domain::Bool);
        assert_eq!(t[3].domain.to_string(), "a finite number in [0, 1]");
    }

    #[test]
    fn defaults_fill_missing_values() {
        let p: Item = resolve("scene x", &given(&[("n", 3.0.into())])).unwrap();
        assert_eq!((p.length, p.n, p.on), (1.0, 3, true));
    }

    #[test]
    fn unknown_names_list_the_valid_choices() {
        let e = resolve::<Item>("scene x", &given(&[("lenght", 3.0.into())])).unwrap_err();
        assert_eq!(e.to_string(), "unknown parameter `lenght` of scene x; expected one of: length, n, on, beta");
    }

    #[test]
    fn out_of_domain_values_name_the_domain() {
        let e = resolve::<Item>("scene x", &given(&[("length", (-1.0).into())])).unwrap_err();
        assert!(e.to_string().contains("`length` = -1 is invalid; expected a finite number > 0"));
        let e = resolve::<Item>("scene x", &given(&[("n", 2.5.into())])).unwrap_err();
        assert!(e.to_string().contains("an integer in [2, 100]"));
        let e = resolve::<Item>("scene x", &given(&[("on", 1.0.into())])).unwrap_err();
        assert!(e.to_string().contains("`on` = 1 is invalid; expected true or false"), "{e}");
        let e = resolve::<Item>("scene x", &given(&[("n", true.into())])).unwrap_err();
        assert!(e.to_string().contains("`n` = true is invalid"), "{e}");
        assert!(resolve::<Item>("scene x", &given(&[("beta", 1.5.into())])).is_err());
        assert!(resolve::<Item>("scene x", &given(&[("length", f64::NAN.into())])).is_err());
        assert!(resolve::<Item>("scene x", &given(&[("length", f64::INFINITY.into())])).is_err());
    }

    #[test]
    fn resolved_handles_return_the_typed_value() {
        let r = ParamTable::of::<Item>().with("x", &[("on", false.into())]).unwrap();
        assert!(!r.get::<Item>().on);
        assert_eq!(r.given(), &[("on".to_string(), Scalar::Bool(false))]);
    }
}
