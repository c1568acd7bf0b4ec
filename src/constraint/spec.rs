//! A constraint described as data (a model file's `joints:` entry), resolved against the bodies'
//! declared poses: which sides it joins, and the geometric fields given. Each constraint type turns
//! a spec into itself ([`super::registry::ConstraintEntry::from_spec`]), naming the field at fault
//! when one is missing, does not apply, or describes no joint.
//!
//! Points and axes given in world coordinates (`at`, `axis`, `center`) are read at the declared
//! poses and stored in each body's frame, so they are exact only if the declared poses satisfy the
//! joint; body-frame anchors (`local_a`, `local_b`) hold whatever the poses are, which is what a
//! model that relies on assembly needs.

use crate::model::BodyKind;
use crate::model::rotation::{rotation_matrix, vec3};
use nalgebra::Vector3;

/// A rigid-3D side's pose: (body, position \[m\], quaternion (w, x, y, z)).
pub type Pose3 = (usize, [f64; 3], [f64; 4]);

/// A spatial joint placed on an axis: side `a`'s pose, side `b`'s (None: the world), a world point
/// on the axis \[m\] and the axis direction.
pub type OnAxis = (Pose3, Option<Pose3>, [f64; 3], [f64; 3]);

/// One side of a joint: a body with its declared pose.
#[derive(Clone, Debug, PartialEq)]
pub struct SideSpec {
    /// Body index.
    pub body: usize,
    /// Body kind.
    pub kind: BodyKind,
    /// The body's declared position coordinates (its slice of q0).
    pub q: Vec<f64>,
}

impl SideSpec {
    /// World position \[m\] of the body-frame point `local` \[m\] at the declared pose.
    pub fn world(&self, local: [f64; 3]) -> [f64; 3] {
        crate::model::BodyPoint { body: self.body, local }.world(self.kind, &self.q)
    }

    /// The body-frame coordinates \[m\] of the world point `p` \[m\] at the declared pose.
    pub fn local(&self, p: [f64; 3]) -> [f64; 3] {
        match self.kind {
            BodyKind::Particle2 | BodyKind::Particle3 | BodyKind::Clock => [0.0; 3],
            BodyKind::Rigid2 => {
                let (s, c) = self.q[2].sin_cos();
                let d = [p[0] - self.q[0], p[1] - self.q[1]];
                [c * d[0] + s * d[1], -s * d[0] + c * d[1], 0.0]
            }
            BodyKind::Rigid3 => {
                let r = rotation_matrix(&self.q[3..7]);
                let l = r.transpose() * (vec3(&p) - Vector3::new(self.q[0], self.q[1], self.q[2]));
                [l.x, l.y, l.z]
            }
        }
    }

    /// A world direction in the body frame at the declared pose.
    pub fn local_direction(&self, d: [f64; 3]) -> [f64; 3] {
        let o = self.world([0.0; 3]);
        let l = self.local([o[0] + d[0], o[1] + d[1], o[2] + d[2]]);
        match self.kind {
            BodyKind::Particle2 | BodyKind::Particle3 => d,
            _ => l,
        }
    }

    /// The planar angle θ \[rad\] (0 for anything but a rigid-2D body).
    pub fn angle(&self) -> f64 {
        if self.kind == BodyKind::Rigid2 { self.q[2] } else { 0.0 }
    }

    /// (body, position, quaternion) of a rigid-3D side, as the 3D joints' `at` constructors take it.
    pub fn pose3(&self) -> Pose3 {
        match self.kind {
            BodyKind::Rigid3 => {
                (self.body, [self.q[0], self.q[1], self.q[2]], [self.q[3], self.q[4], self.q[5], self.q[6]])
            }
            _ => {
                let p = self.world([0.0; 3]);
                (self.body, p, [1.0, 0.0, 0.0, 0.0])
            }
        }
    }
}

/// A joint as a model file states it: sides `a` and `b` (None = the world) and the geometric
/// fields present (2D values padded with z = 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointSpec {
    /// First side.
    pub a: Option<SideSpec>,
    /// Second side.
    pub b: Option<SideSpec>,
    /// A world point \[m\] at the declared poses (the joint's location).
    pub at: Option<[f64; 3]>,
    /// Anchor in `a`'s frame \[m\] (a world point when `a` is the world).
    pub local_a: Option<[f64; 3]>,
    /// Anchor in `b`'s frame \[m\] (a world point when `b` is the world).
    pub local_b: Option<[f64; 3]>,
    /// A world direction at the declared poses (any nonzero length).
    pub axis: Option<[f64; 3]>,
    /// A world point \[m\]: a circle's centre.
    pub center: Option<[f64; 3]>,
    /// A length \[m\] (default: the distance at the declared poses).
    pub length: Option<f64>,
    /// A radius \[m\] (default: the distance at the declared poses).
    pub radius: Option<f64>,
}

/// Why a joint spec describes no joint of its type: a field missing, present where it does not
/// apply, of the wrong body kind, or a value out of range. Rendered as one line naming the joint
/// type and the field; a model file locates it at the joint's entry.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A field the joint type does not take.
    #[error("field `{field}` does not apply to `{kind}`; it takes: a, b, {takes}")]
    DoesNotApply {
        /// Joint type.
        kind: String,
        /// The field given.
        field: &'static str,
        /// The fields it takes, comma-separated.
        takes: String,
    },
    /// Side `a` is the world where the joint needs a body.
    #[error("`{kind}` needs a body as `a`, not the world")]
    NeedsBody {
        /// Joint type.
        kind: String,
    },
    /// A side is a body of a kind the joint does not join.
    #[error("field `{field}` of `{kind}` is a {found} body; `{kind}` joins {joins}")]
    BodyKind {
        /// Joint type.
        kind: String,
        /// `a` or `b`.
        field: &'static str,
        /// The side's body kind.
        found: &'static str,
        /// The kinds it joins, `or`-separated.
        joins: String,
    },
    /// Side `b` is a body where the joint holds one body to the world.
    #[error("`{kind}` holds one body to the world; field `b` must be `world` or left out")]
    NotWorld {
        /// Joint type.
        kind: String,
    },
    /// A field the joint needs is missing.
    #[error("`{kind}` needs {needs}")]
    Missing {
        /// Joint type.
        kind: String,
        /// What is needed: the field, or the alternatives, with what each means.
        needs: String,
    },
    /// Two fields that say the same thing, given together.
    #[error("`{kind}`: give `{first}` or `{second}`, not both")]
    Both {
        /// Joint type.
        kind: String,
        /// One field.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// A field's value is out of its range.
    #[error("field `{field}` of `{kind}` {problem}; expected {expected}")]
    Invalid {
        /// Joint type.
        kind: String,
        /// The field.
        field: String,
        /// What is wrong with the value (e.g. `= -1`, `is the zero vector`).
        problem: String,
        /// The valid values.
        expected: &'static str,
    },
    /// The declared poses give a value the joint cannot take, or the fields describe no joint.
    #[error("`{kind}`: {reason}")]
    Geometry {
        /// Joint type.
        kind: String,
        /// What the poses or fields give, and what to give instead.
        reason: String,
    },
}

/// The geometric field names a spec can carry (what `joints:` entries may hold besides `type`, `a`, `b`).
pub const FIELDS: &[&str] = &["at", "local_a", "local_b", "axis", "center", "length", "radius"];

impl JointSpec {
    /// The geometric fields present.
    pub fn given(&self) -> Vec<&'static str> {
        let present = [
            self.at.is_some(),
            self.local_a.is_some(),
            self.local_b.is_some(),
            self.axis.is_some(),
            self.center.is_some(),
            self.length.is_some(),
            self.radius.is_some(),
        ];
        FIELDS.iter().zip(present).filter(|(_, p)| *p).map(|(f, _)| *f).collect()
    }

    /// Fails naming the first field present that `kind` does not take.
    pub fn only(&self, kind: &str, takes: &[&str]) -> Result<(), SpecError> {
        match self.given().into_iter().find(|f| !takes.contains(f)) {
            Some(field) => Err(SpecError::DoesNotApply { kind: kind.into(), field, takes: takes.join(", ") }),
            None => Ok(()),
        }
    }

    /// Side `a`, which must be a body of one of `kinds`.
    pub fn body_a(&self, kind: &str, kinds: &[BodyKind]) -> Result<&SideSpec, SpecError> {
        let a = self.a.as_ref().ok_or_else(|| SpecError::NeedsBody { kind: kind.into() })?;
        check_kind(kind, "a", a, kinds)?;
        Ok(a)
    }

    /// Side `b` when it is a body (checked against `kinds`); None for the world.
    pub fn body_b(&self, kind: &str, kinds: &[BodyKind]) -> Result<Option<&SideSpec>, SpecError> {
        match &self.b {
            Some(b) => check_kind(kind, "b", b, kinds).map(|_| Some(b)),
            None => Ok(None),
        }
    }

    /// Fails unless `b` is the world (joints that hold one body).
    pub fn world_b(&self, kind: &str) -> Result<(), SpecError> {
        match self.b {
            Some(_) => Err(SpecError::NotWorld { kind: kind.into() }),
            None => Ok(()),
        }
    }

    /// The anchor of side `a` in its frame: `local_a`, or `at` read at the declared pose.
    pub fn anchor_a(&self, kind: &str) -> Result<[f64; 3], SpecError> {
        anchor(kind, self.a.as_ref(), self.local_a, self.at, "local_a")
    }

    /// The anchor of side `b` in its frame (a world point for the world): `local_b`, or `at`.
    pub fn anchor_b(&self, kind: &str) -> Result<[f64; 3], SpecError> {
        anchor(kind, self.b.as_ref(), self.local_b, self.at, "local_b")
    }

    /// The world position \[m\] of an anchor of side `side` at the declared pose.
    pub fn world_of(side: Option<&SideSpec>, local: [f64; 3]) -> [f64; 3] {
        side.map_or(local, |s| s.world(local))
    }

    /// The axis, which must be given and nonzero.
    pub fn axis(&self, kind: &str) -> Result<[f64; 3], SpecError> {
        let a = self.axis.ok_or_else(|| missing(kind, "field `axis` (a world direction)"))?;
        if a.iter().map(|x| x * x).sum::<f64>() == 0.0 {
            return Err(SpecError::Invalid {
                kind: kind.into(),
                field: "axis".into(),
                problem: "is the zero vector".into(),
                expected: "a nonzero direction",
            });
        }
        Ok(a)
    }

    /// The sides, point and axis of a spatial joint placed by `at` and `axis` (hinge, slider):
    /// rigid-3D `a`, rigid-3D `b` or the world, both poses as the joints' `at` constructors take
    /// them; fails naming a missing field or one that does not apply.
    pub fn on_axis(&self, kind: &str) -> Result<OnAxis, SpecError> {
        self.only(kind, &["at", "axis"])?;
        let a = self.body_a(kind, &[BodyKind::Rigid3])?;
        let b = self.body_b(kind, &[BodyKind::Rigid3])?;
        let at = self.at.ok_or_else(|| missing(kind, "field `at` (a world point on the axis)"))?;
        Ok((a.pose3(), b.map(SideSpec::pose3), at, self.axis(kind)?))
    }

    /// A length field, or `default` (a distance at the declared poses); positive and at most
    /// 1e100 m either way (the model's bound on every number).
    pub fn positive(&self, kind: &str, field: &str, given: Option<f64>, default: f64) -> Result<f64, SpecError> {
        let v = given.unwrap_or(default);
        if v > 0.0 && v <= 1e100 {
            Ok(v)
        } else if given.is_some() {
            Err(SpecError::Invalid {
                kind: kind.into(),
                field: field.into(),
                problem: format!("= {}", crate::params::fmt_num(v)),
                expected: "a positive length of at most 1e100 m",
            })
        } else {
            Err(SpecError::Geometry {
                kind: kind.into(),
                reason: format!("the declared poses give {field} {v}; give field `{field}` (a positive length)"),
            })
        }
    }
}

/// The error of a missing field: `kind` needs `needs`.
fn missing(kind: &str, needs: &str) -> SpecError {
    SpecError::Missing { kind: kind.into(), needs: needs.into() }
}

fn check_kind(kind: &str, field: &'static str, side: &SideSpec, kinds: &[BodyKind]) -> Result<(), SpecError> {
    if kinds.contains(&side.kind) {
        return Ok(());
    }
    let names: Vec<&str> = kinds.iter().map(|k| k.label()).collect();
    Err(SpecError::BodyKind { kind: kind.into(), field, found: side.kind.label(), joins: names.join(" or ") })
}

fn anchor(
    kind: &str,
    side: Option<&SideSpec>,
    local: Option<[f64; 3]>,
    at: Option<[f64; 3]>,
    field: &'static str,
) -> Result<[f64; 3], SpecError> {
    match (local, at) {
        (Some(_), Some(_)) => Err(SpecError::Both { kind: kind.into(), first: "at", second: field }),
        (Some(l), None) => {
            if let Some(s) = side
                && matches!(s.kind, BodyKind::Particle2 | BodyKind::Particle3)
                && l.iter().any(|x| *x != 0.0)
            {
                return Err(SpecError::Invalid {
                    kind: kind.into(),
                    field: field.into(),
                    problem: "is off a particle, which has no extent".into(),
                    expected: "[0, 0]",
                });
            }
            Ok(l)
        }
        (None, Some(p)) => Ok(side.map_or(p, |s| s.local(p))),
        (None, None) => match side {
            Some(s) if matches!(s.kind, BodyKind::Particle2 | BodyKind::Particle3) => Ok([0.0; 3]),
            _ => Err(missing(kind, &format!("field `at` (a world point) or `{field}` (a point in the body frame)"))),
        },
    }
}

/// Distance between two points \[m\].
pub fn distance(p: [f64; 3], q: [f64; 3]) -> f64 {
    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
}
