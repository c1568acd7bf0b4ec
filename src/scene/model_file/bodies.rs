//! The bodies of a model file: each body's kind, mass and inertia checked, and its declared
//! state (position, velocity; orientation and angular velocity of a rigid body) appended to the
//! initial (q, v).

use super::build::{LARGEST, REACH, finite, is_name, placed, positive, vector};
use crate::input::{ConfigError, at};
use crate::model::{Body, BodyKind};
use crate::params::{fmt_num, short};
use crate::system::System;
use nalgebra::{UnitQuaternion, Vector3};
use serde_saphyr::Spanned;
use std::collections::HashMap;

/// The body kinds a model names, with their registry words.
const KINDS: &[(&str, BodyKind)] = &[
    ("particle2", BodyKind::Particle2),
    ("particle3", BodyKind::Particle3),
    ("rigid2", BodyKind::Rigid2),
    ("rigid3", BodyKind::Rigid3),
];

/// The bodies declared so far: the system they are added to, their initial state and names.
#[derive(Default)]
pub(super) struct Bodies {
    pub(super) system: System,
    pub(super) q0: Vec<f64>,
    pub(super) v0: Vec<f64>,
    pub(super) names: HashMap<String, usize>,
    pub(super) body_names: Vec<String>,
}

impl Bodies {
    /// Adds body `i` of the model with its declared state.
    pub(super) fn add(
        &mut self,
        file: &str,
        i: usize,
        b: &Spanned<super::RawBody>,
        length_scale: f64,
    ) -> Result<(), ConfigError> {
        let here = |m: String| ConfigError {
            file: file.into(),
            location: at(b),
            message: format!("body `{}`: {m}", short(&b.value.name.value)),
        };
        let located = |s: &Spanned<String>, m: String| ConfigError { file: file.into(), location: at(s), message: m };
        let bn = &b.value.name;
        if !is_name(&bn.value) || bn.value == "world" {
            return Err(located(
                bn,
                format!(
                    "field `bodies[{i}].name` = `{}` is invalid; expected a letter or `_` then letters, digits or `_` (at most 64), not `world`",
                    short(&bn.value)
                ),
            ));
        }
        if self.names.insert(bn.value.clone(), i).is_some() {
            return Err(located(
                bn,
                format!("field `bodies[{i}].name` = `{}` names an earlier body too", short(&bn.value)),
            ));
        }
        self.body_names.push(bn.value.clone());
        let kw = &b.value.kind;
        let Some(&(_, kind)) = KINDS.iter().find(|(w, _)| *w == kw.value) else {
            let words: Vec<&str> = KINDS.iter().map(|(w, _)| *w).collect();
            return Err(located(
                kw,
                format!(
                    "field `bodies[{i}].kind` = `{}` is unknown; expected one of: {}",
                    short(&kw.value),
                    words.join(", ")
                ),
            ));
        };
        let b = &b.value;
        let body = body_of(kind, &kw.value, b).map_err(&here)?;
        initial_state(kind, &kw.value, b, length_scale, &mut self.q0, &mut self.v0).map_err(&here)?;
        self.system.add_body(body).map_err(|e| here(e.to_string()))?;
        Ok(())
    }
}

/// The body of `kind` (named by `word`) with the declared mass and inertia, or why not.
fn body_of(kind: BodyKind, word: &str, b: &super::RawBody) -> Result<Body, String> {
    let mass = positive("mass", b.mass.value)?;
    let body = match (kind, &b.inertia) {
        (BodyKind::Particle2, None) => Body::particle2(mass),
        (BodyKind::Particle3, None) => Body::particle3(mass),
        (BodyKind::Rigid2, Some(i)) => match i.value.0.as_slice() {
            [x] => Body::rigid2(mass, positive("inertia", *x)?),
            v => {
                return Err(format!("field `inertia` has {} numbers; a rigid2 body takes one [kg m^2]", v.len()));
            }
        },
        (BodyKind::Rigid3, Some(i)) => {
            let m = vector("inertia", &i.value, 3)?;
            for x in m {
                positive("inertia", x)?;
            }
            // Principal moments of a real body satisfy the triangle inequalities
            // I_a ≤ I_b + I_c (I_a + I_b − I_c = 2 ∫ z² dm ≥ 0), equality for a flat body;
            // a relative 1e-12 allows moments rounded from a flat body's.
            for k in 0..3 {
                let (a, b, c) = (m[k], m[(k + 1) % 3], m[(k + 2) % 3]);
                if a > (b + c) * (1.0 + 1e-12) {
                    return Err(format!(
                        "field `inertia` = [{}, {}, {}] is no body's: a principal moment exceeds the sum of the other two ({} > {} + {}); expected I1 <= I2 + I3, I2 <= I1 + I3, I3 <= I1 + I2",
                        fmt_num(m[0]),
                        fmt_num(m[1]),
                        fmt_num(m[2]),
                        fmt_num(a),
                        fmt_num(b),
                        fmt_num(c)
                    ));
                }
            }
            Body::rigid3(mass, m)
        }
        (_, Some(_)) => return Err(format!("field `inertia` does not apply to a {} body", word)),
        (_, None) => return Err(format!("a {} body needs field `inertia` [kg m^2]", word)),
    };
    Ok(body)
}

/// Appends body `b`'s declared position and velocity (and orientation and angular velocity for
/// a rigid body of `kind`, named by `word`) to (q0, v0), or why not.
fn initial_state(
    kind: BodyKind,
    word: &str,
    b: &super::RawBody,
    length_scale: f64,
    q0: &mut Vec<f64>,
    v0: &mut Vec<f64>,
) -> Result<(), String> {
    let rigid = matches!(kind, BodyKind::Rigid2 | BodyKind::Rigid3);
    let dim = kind.dim();
    let x = vector("position", &b.position.value, dim).and_then(|x| placed("position", x, length_scale))?;
    let vel = match &b.velocity {
        Some(v) => vector("velocity", &v.value, dim)?,
        None => [0.0; 3],
    };
    if !rigid && (b.angle.is_some() || b.orientation.is_some() || b.angular_velocity.is_some()) {
        return Err(format!(
            "a {} body has no orientation; `angle`, `orientation` and `angular_velocity` do not apply",
            word
        ));
    }
    q0.extend_from_slice(&x[..dim]);
    v0.extend_from_slice(&vel[..dim]);
    match kind {
        BodyKind::Rigid2 => {
            if b.orientation.is_some() {
                return Err("a rigid2 body takes `angle` [rad], not `orientation`".into());
            }
            let theta = b.angle.as_ref().map_or(Ok(0.0), |a| finite("angle", a.value))?;
            if theta.abs() > REACH {
                return Err(format!(
                    "field `angle` = {}; expected at most {REACH:e} rad in magnitude (farther out, rounding alone exceeds the assembly tolerance)",
                    fmt_num(theta)
                ));
            }
            let w = match &b.angular_velocity {
                Some(w) => vector("angular_velocity", &w.value, 1)?[0],
                None => 0.0,
            };
            q0.push(theta);
            v0.push(w);
        }
        BodyKind::Rigid3 => {
            if b.angle.is_some() {
                return Err("a rigid3 body takes `orientation`, not `angle`".into());
            }
            let r = match &b.orientation {
                Some(o) => orientation(&o.value)?,
                None => UnitQuaternion::identity(),
            };
            let w = match &b.angular_velocity {
                Some(w) => Vector3::from(vector("angular_velocity", &w.value, 3)?),
                None => Vector3::zeros(),
            };
            let body_w = r.inverse() * w; // Ω = Rᵀ ω: v stores the body-frame rate
            q0.extend_from_slice(&[r.w, r.i, r.j, r.k]);
            v0.extend_from_slice(body_w.as_slice());
        }
        _ => {}
    }
    Ok(())
}

/// A rigid-3D body's declared orientation.
fn orientation(o: &super::RawOrientation) -> Result<UnitQuaternion<f64>, String> {
    match (&o.quaternion, &o.axis, o.angle) {
        (Some(q), None, None) => {
            if q.0.len() != 4 || q.0.iter().any(|x| !(x.abs() <= LARGEST)) {
                return Err(format!(
                    "field `orientation.quaternion` needs 4 finite numbers (w, x, y, z) of magnitude at most {LARGEST:e}"
                ));
            }
            let n = q.0.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n == 0.0 {
                return Err("field `orientation.quaternion` is zero; expected a unit quaternion (w, x, y, z)".into());
            }
            Ok(UnitQuaternion::new_normalize(nalgebra::Quaternion::new(q.0[0], q.0[1], q.0[2], q.0[3])))
        }
        (None, Some(a), Some(angle)) => {
            let axis = Vector3::from(vector("orientation.axis", a, 3)?);
            if axis.norm() == 0.0 || !(angle.abs() <= REACH) {
                return Err(format!(
                    "field `orientation`: `axis` must be nonzero and `angle` = {} at most {REACH:e} rad in magnitude",
                    fmt_num(angle)
                ));
            }
            Ok(UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle))
        }
        _ => Err("field `orientation` takes either `quaternion: [w, x, y, z]` or `axis: [x, y, z]` with `angle` [rad]"
            .into()),
    }
}
