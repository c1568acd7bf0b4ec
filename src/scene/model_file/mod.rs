//! Model files: a mechanism as data (docs/design.md §5.1). A YAML file names its bodies (kind,
//! mass, inertia, declared pose and velocity), applied forces, joints (every registered constraint
//! by name, bodies by name), named outputs, an energy and a length scale; experiments use it as
//! `scene: {model: models/<x>.yaml}`. Bad files get one line naming file:line:col, the field, the
//! value and the valid choices, as configs do. The declared state is assembled onto the
//! constraints before anything runs ([`assemble`]).

mod address;
pub mod assemble;
mod bodies;
mod build;
mod contact;
mod drives;
mod forces;

use crate::input::{ConfigError, at, parse_as, read_text};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

pub use assemble::Assembly;
pub use build::build;

/// One number or a list of numbers (`inertia: 2e-6` or `inertia: [1, 2, 3]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Floats(pub Vec<f64>);

impl<'de> Deserialize<'de> for Floats {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Floats;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a list of numbers")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Floats, E> {
                Ok(Floats(vec![x]))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Floats, E> {
                Ok(Floats(vec![x as f64]))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Floats, E> {
                Ok(Floats(vec![x as f64]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Floats, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<f64>()? {
                    v.push(x);
                }
                Ok(Floats(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// A model file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModel {
    /// The model's name (letters, digits, `_`, `-`): the scene name in reports.
    pub model: Spanned<String>,
    /// One line: what the mechanism is.
    #[serde(default)]
    pub summary: String,
    /// Where the mechanism is defined (citation), copied into reports.
    #[serde(default)]
    pub source: String,
    /// The mechanism's size \[m\]: a run whose constraint violation exceeds it has diverged.
    pub length_scale: Spanned<f64>,
    /// The energy that relative energy errors are divided by.
    pub energy_scale: Spanned<RawEnergyScale>,
    /// The bodies, in order (their indices are `body<i>` in generic outputs).
    pub bodies: Spanned<Vec<Spanned<RawBody>>>,
    /// Applied forces.
    #[serde(default)]
    pub forces: Vec<Spanned<RawForce>>,
    /// The gyroscopic torque −Ω × IΩ on rigid-3D bodies: on unless `false` (a simplification some
    /// engines make, named in every label and report of the model).
    #[serde(default)]
    pub gyroscopic: Option<Spanned<bool>>,
    /// Joints: registered constraints between named bodies.
    #[serde(default)]
    pub joints: Vec<Spanned<RawJoint>>,
    /// Driving constraints: body coordinates prescribed as functions of time.
    #[serde(default)]
    pub drives: Vec<Spanned<RawDrive>>,
    /// Contact: shapes on rigid3 bodies, static planes, the material (runs under `pgs`).
    #[serde(default)]
    pub contact: Option<Spanned<RawContact>>,
    /// The model's reference solution, used by experiments that give none of their own.
    #[serde(default)]
    pub reference: Option<Spanned<ModelReference>>,
    /// Named outputs.
    #[serde(default)]
    pub outputs: Vec<Spanned<RawOutput>>,
    /// How the declared state is made consistent.
    #[serde(default)]
    pub assemble: Option<Spanned<RawAssembleChoice>>,
    /// Invariants that identify the assembly branch: a run leaving one is reported as such.
    #[serde(default)]
    pub branch: Vec<Spanned<RawInvariant>>,
}

/// One entry of `branch:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInvariant {
    /// A sum of body addresses, as in `outputs:`.
    pub value: Spanned<String>,
    /// Lower bound (the value's unit).
    pub min: f64,
    /// Upper bound (the value's unit).
    pub max: f64,
}

/// One entry of `drives:`: the coordinate follows f(t) = start + rate t + amplitude
/// (sin(omega t + phase) − sin phase), or the expression `function` ([`crate::constraint::drive`],
/// [`crate::expr`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDrive {
    /// A name for outputs (`NAME.lambda`: the drive's force or torque); optional.
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    /// The driven coordinate, `NAME.x|y|z|angle` (a position, or a planar body's angle), or
    /// `JOINT.angle` of a named hinge to the world (the body's rotation about the hinge's axis).
    pub coordinate: Spanned<String>,
    /// A second body of the same kind: the drive prescribes the difference of the coordinate
    /// between the two (e.g. a revolute joint's angle between two moving links).
    #[serde(default)]
    pub relative_to: Option<String>,
    /// f(0) \[m or rad\]; default: the coordinate's declared value.
    #[serde(default)]
    pub start: Option<f64>,
    /// Constant rate \[m/s or rad/s\] (default 0).
    #[serde(default)]
    pub rate: f64,
    /// Amplitude of the harmonic part \[m or rad\] (default 0).
    #[serde(default)]
    pub amplitude: f64,
    /// Its angular frequency \[rad/s\] (default 0).
    #[serde(default)]
    pub omega: f64,
    /// Its phase \[rad\] (default 0).
    #[serde(default)]
    pub phase: f64,
    /// f(t) as an expression in t \[s\] (result in m or rad), e.g. `asin(0.1 * sin(10 * t))`;
    /// excludes the five fields above.
    #[serde(default)]
    pub function: Option<Spanned<String>>,
    /// f(t) as a table, interpolated by a natural cubic spline; excludes the fields above.
    #[serde(default)]
    pub table: Option<Spanned<RawTable>>,
}

/// A drive's `table:` — times and values of f.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTable {
    /// Times \[s\], strictly increasing, the first at most 0.
    pub t: Vec<f64>,
    /// f at those times \[m or rad\].
    pub value: Vec<f64>,
}

/// `contact:` — shapes, planes, material and margin ([`crate::contact::ContactSet`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContact {
    /// Collision shapes, all on rigid3 bodies or all on rigid2 bodies (contact in the plane),
    /// centred at the centre of mass, in the body frame.
    #[serde(default)]
    pub shapes: Vec<Spanned<RawShape>>,
    /// Static planes: the half-space n·p ≤ offset is solid (in the plane: lines, n with 2 numbers).
    #[serde(default)]
    pub planes: Vec<Spanned<RawPlane>>,
    /// Coulomb friction coefficient μ of every contact.
    #[serde(default)]
    pub friction: f64,
    /// Restitution coefficient in \[0, 1\] of every contact.
    #[serde(default)]
    pub restitution: f64,
    /// Approach speed \[m/s\] below which no restitution is applied.
    #[serde(default)]
    pub restitution_threshold: f64,
    /// Contacts are reported up to this separation \[m\] (speculative margin; at most length_scale).
    #[serde(default)]
    pub margin: f64,
}

impl RawContact {
    /// The material fields (flat in the file, grouped here).
    pub fn material(&self) -> crate::contact::Material {
        crate::contact::Material {
            friction: self.friction,
            restitution: self.restitution,
            restitution_threshold: self.restitution_threshold,
        }
    }
}

/// One entry of `contact.shapes:` — exactly one of `sphere`, `box`, `capsule`, `cylinder` and
/// `hull` on a rigid3 body, of `circle`, `box` (2 numbers), `capsule` (on the body's y axis) and
/// `polygon` on a rigid2 body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShape {
    /// The body carrying the shape.
    pub body: String,
    /// A sphere's radius \[m\].
    #[serde(default)]
    pub sphere: Option<f64>,
    /// A circle's radius \[m\] (rigid2).
    #[serde(default)]
    pub circle: Option<f64>,
    /// A box's half extents along the body axes \[m\] (3 numbers; 2 on a rigid2 body).
    #[serde(default, rename = "box")]
    pub r#box: Option<Floats>,
    /// A capsule on the body's z axis (on a rigid2 body: its y axis).
    #[serde(default)]
    pub capsule: Option<RawRound>,
    /// A cylinder on the body's z axis.
    #[serde(default)]
    pub cylinder: Option<RawRound>,
    /// The convex hull of these points, body frame \[m\].
    #[serde(default)]
    pub hull: Option<Vec<Floats>>,
    /// The convex hull of these points in the plane, body frame \[m\] (rigid2).
    #[serde(default)]
    pub polygon: Option<Vec<Floats>>,
}

/// A capsule's or a cylinder's size.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRound {
    /// Radius \[m\].
    pub radius: f64,
    /// Half the axis length (the capsule's segment, the cylinder's height) \[m\].
    pub half_height: f64,
}

/// One entry of `contact.planes:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlane {
    /// Outward normal (normalised on reading): 3 numbers, or 2 where the shapes lie in the plane.
    pub normal: Floats,
    /// Offset along the normal \[m\] (default 0).
    #[serde(default)]
    pub offset: f64,
}

/// `reference:` of a model: a CSV of `t` and output columns (the experiment file's `reference:`
/// format), relative to the model file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelReference {
    /// The CSV file, relative to the model file.
    pub file: String,
    /// The columns compared (default: every column naming an output).
    #[serde(default)]
    pub columns: Vec<String>,
    /// The compared columns whose largest error is the reference error, all of one unit
    /// (default: every compared column).
    #[serde(default)]
    pub score: Vec<String>,
}

/// `energy_scale:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEnergyScale {
    /// Value \[J\].
    pub joules: Spanned<f64>,
    /// How it is defined (stated in reports).
    pub definition: String,
}

/// One entry of `bodies:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBody {
    /// Unique name (not `world`).
    pub name: Spanned<String>,
    /// `particle2`, `particle3`, `rigid2` or `rigid3`.
    pub kind: Spanned<String>,
    /// Mass \[kg\].
    pub mass: Spanned<f64>,
    /// Moment of inertia about the centre of mass \[kg m²\]: one number (rigid2) or the three
    /// principal moments (rigid3, body axes).
    #[serde(default)]
    pub inertia: Option<Spanned<Floats>>,
    /// Position of the centre of mass \[m\] (2 or 3 numbers).
    pub position: Spanned<Floats>,
    /// Planar angle \[rad\] (rigid2).
    #[serde(default)]
    pub angle: Option<Spanned<f64>>,
    /// Orientation (rigid3): `{quaternion: [w, x, y, z]}` or `{axis: [x, y, z], angle: a}`.
    #[serde(default)]
    pub orientation: Option<Spanned<RawOrientation>>,
    /// Velocity of the centre of mass \[m/s\] (default zero).
    #[serde(default)]
    pub velocity: Option<Spanned<Floats>>,
    /// Angular velocity \[rad/s\]: a number (rigid2) or a world-frame vector (rigid3); default zero.
    #[serde(default)]
    pub angular_velocity: Option<Spanned<Floats>>,
}

/// `orientation:` of a rigid-3D body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOrientation {
    /// Unit quaternion (w, x, y, z) (normalized if not unit).
    #[serde(default)]
    pub quaternion: Option<Floats>,
    /// Rotation axis (any nonzero length), with `angle`.
    #[serde(default)]
    pub axis: Option<Floats>,
    /// Rotation angle \[rad\] about `axis`.
    #[serde(default)]
    pub angle: Option<f64>,
}

/// A point for forces: `{body: name, point: [..]}` (body frame) or `{world: [..]}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPoint {
    /// The body.
    #[serde(default)]
    pub body: Option<String>,
    /// Offset in the body frame \[m\] (default: the centre of mass).
    #[serde(default)]
    pub point: Option<Floats>,
    /// A fixed world point \[m\].
    #[serde(default)]
    pub world: Option<Floats>,
}

/// One entry of `forces:` (fields by `type`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawForce {
    /// `gravity`, `spring`, `constant`, `torque` or `gyroscopic`.
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    /// Gravity's acceleration \[m/s²\].
    #[serde(default)]
    pub g: Option<Floats>,
    /// A spring's first end (a body point).
    #[serde(default)]
    pub a: Option<RawPoint>,
    /// A spring's second end (a body point or a world point).
    #[serde(default)]
    pub b: Option<RawPoint>,
    /// Spring stiffness \[N/m\].
    #[serde(default)]
    pub stiffness: Option<f64>,
    /// Spring damping \[N s/m\] (default 0).
    #[serde(default)]
    pub damping: Option<f64>,
    /// Spring rest length \[m\] (default: its length at the declared poses).
    #[serde(default)]
    pub rest_length: Option<f64>,
    /// The body a constant force or torque acts on.
    #[serde(default)]
    pub body: Option<String>,
    /// Where a constant force acts, body frame \[m\] (default: the centre of mass).
    #[serde(default)]
    pub point: Option<Floats>,
    /// A constant force \[N\] (world frame).
    #[serde(default)]
    pub force: Option<Floats>,
    /// A constant torque \[N m\] on a rigid-2D body, counter-clockwise positive.
    #[serde(default)]
    pub torque: Option<f64>,
}

/// One entry of `joints:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJoint {
    /// A name for outputs (`NAME.lambda`: the joint's multiplier); optional.
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    /// A registered constraint name.
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    /// First body.
    pub a: Spanned<String>,
    /// Second body, or `world` (the default).
    #[serde(default)]
    pub b: Option<Spanned<String>>,
    /// A world point at the declared poses \[m\].
    #[serde(default)]
    pub at: Option<Floats>,
    /// Anchor in `a`'s frame \[m\].
    #[serde(default)]
    pub local_a: Option<Floats>,
    /// Anchor in `b`'s frame \[m\] (a world point when `b` is the world).
    #[serde(default)]
    pub local_b: Option<Floats>,
    /// A world direction at the declared poses.
    #[serde(default)]
    pub axis: Option<Floats>,
    /// A world point \[m\] (a circle's centre).
    #[serde(default)]
    pub center: Option<Floats>,
    /// A length \[m\].
    #[serde(default)]
    pub length: Option<f64>,
    /// A radius \[m\].
    #[serde(default)]
    pub radius: Option<f64>,
}

/// One entry of `outputs:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    /// The name configs use.
    pub name: Spanned<String>,
    /// A sum of body addresses with signs, e.g. `K2.angle - K1.angle` or `K3.point(0.02, -0.018).y`.
    pub value: Spanned<String>,
    /// What it is, for reports (default: the value as written).
    #[serde(default)]
    pub describes: Option<String>,
}

/// `assemble:` — `false` (use the declared state as written, off the constraints, e.g. to study
/// stabilization from a violated start), or what the assembly keeps.
#[derive(Debug)]
pub enum RawAssembleChoice {
    /// `assemble: false`.
    Off,
    /// `assemble: true` (the default) or `assemble: {keep: …}`.
    On(RawAssemble),
}

impl<'de> Deserialize<'de> for RawAssembleChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawAssembleChoice;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("true, false, or a map {keep: [..], keep_velocity: [..]}")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<RawAssembleChoice, E> {
                Ok(if b { RawAssembleChoice::On(RawAssemble::default()) } else { RawAssembleChoice::Off })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawAssembleChoice, A::Error> {
                RawAssemble::deserialize(de::value::MapAccessDeserializer::new(map)).map(RawAssembleChoice::On)
            }
        }
        d.deserialize_any(V)
    }
}

/// `assemble: {…}`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAssemble {
    /// Coordinates the position assembly keeps as declared (`K1.angle`, `K2.x`, …).
    #[serde(default)]
    pub keep: Vec<Spanned<String>>,
    /// Coordinates whose declared velocities the velocity assembly keeps.
    #[serde(default)]
    pub keep_velocity: Vec<Spanned<String>>,
}

/// A loaded model: the built scene, what assembly did, and what reports cite.
#[derive(Debug)]
pub struct Model {
    /// The model file.
    pub file: String,
    /// The model's one-line summary.
    pub summary: String,
    /// Its source (citation).
    pub source: String,
    /// The length scale \[m\].
    pub length_scale: f64,
    /// How far assembly moved the declared state.
    pub assembly: Assembly,
    /// The scene (state assembled).
    pub scene: super::Scene,
    /// The body names, in index order.
    pub body_names: Vec<String>,
    /// Where each joint sits, for pictures.
    pub joints: Vec<JointMark>,
    /// The model's reference solution (its file relative to the model file), if it declares one.
    pub reference: Option<ModelReference>,
    /// Physics the model turns off (e.g. the gyroscopic term), one phrase each, for labels and
    /// reports; empty for a model with everything on.
    pub simplifications: Vec<String>,
    /// SHA-256 of the model file's text, hex: part of the identity of every result computed on it.
    pub text_hash: String,
}

/// Where a joint sits, for pictures: its type and its anchor on each side (a body and a point in
/// its frame, or a world point).
#[derive(Clone, Debug, PartialEq)]
pub struct JointMark {
    /// The constraint type.
    pub kind: String,
    /// Anchors: (body, point in its frame \[m\]) or (None, world point \[m\]).
    pub anchors: Vec<(Option<usize>, [f64; 3])>,
}

/// The largest model, in bodies, joints, forces and outputs (each): a model is written by hand
/// or generated; this bounds the memory a file can ask for before anything is built.
pub const MAX_ITEMS: usize = 100_000;

/// What the assembly of a model's initial state may allocate unless the caller says otherwise
/// \[bytes\]: the default `limits.cell_memory_mb` (a config's own limit applies to its models
/// through [`load_within`]).
pub const DEFAULT_ASSEMBLY_BYTES: u64 = 4096 * 1_000_000;

/// Reads, parses, builds and assembles a model file.
pub fn load(file: &str) -> Result<Model, ConfigError> {
    load_within(file, DEFAULT_ASSEMBLY_BYTES)
}

/// [`load`] with the assembly's memory bounded by `max_bytes`: a model whose J W Jᵀ would need
/// more (rows sharing one body make it dense) is refused before it is built.
pub fn load_within(file: &str, max_bytes: u64) -> Result<Model, ConfigError> {
    from_text_within(file, &read_text(file, "the model", "a model file is a few kB")?, max_bytes)
}

/// [`load`] from text (`file` names it in errors).
pub fn from_text(file: &str, text: &str) -> Result<Model, ConfigError> {
    from_text_within(file, text, DEFAULT_ASSEMBLY_BYTES)
}

/// [`load_within`] from text.
fn from_text_within(file: &str, text: &str, max_bytes: u64) -> Result<Model, ConfigError> {
    let raw: RawModel = parse_as(file, text)?;
    let mut m = build::build_checked(file, &raw, true, max_bytes)?;
    m.text_hash = text_hash(text);
    Ok(m)
}

/// The models shipped in `models/`, built into the binary (path as in the repository, text), so
/// that `validate` and `list` work from any directory.
pub const SHIPPED: &[(&str, &str)] = &[
    ("models/andrews_squeezer.yaml", include_str!("../../../models/andrews_squeezer.yaml")),
    ("models/box_pyramid.yaml", include_str!("../../../models/box_pyramid.yaml")),
    ("models/box_pyramid_2d.yaml", include_str!("../../../models/box_pyramid_2d.yaml")),
    ("models/box_sliding_to_rest.yaml", include_str!("../../../models/box_sliding_to_rest.yaml")),
    ("models/box_stack_10_2d.yaml", include_str!("../../../models/box_stack_10_2d.yaml")),
    ("models/car_axis.yaml", include_str!("../../../models/car_axis.yaml")),
    ("models/cylinder_rolling_down_incline.yaml", include_str!("../../../models/cylinder_rolling_down_incline.yaml")),
    ("models/iftomm_a01_pendulum.yaml", include_str!("../../../models/iftomm_a01_pendulum.yaml")),
    ("models/iftomm_a02_n2.yaml", include_str!("../../../models/iftomm_a02_n2.yaml")),
    ("models/iftomm_a02_n40.yaml", include_str!("../../../models/iftomm_a02_n40.yaml")),
    ("models/iftomm_a04_bricard.yaml", include_str!("../../../models/iftomm_a04_bricard.yaml")),
    ("models/iftomm_a05_flyball.yaml", include_str!("../../../models/iftomm_a05_flyball.yaml")),
    ("models/newtons_cradle.yaml", include_str!("../../../models/newtons_cradle.yaml")),
    ("models/slotted_rotor.yaml", include_str!("../../../models/slotted_rotor.yaml")),
    ("models/sphere_rolling_down_incline.yaml", include_str!("../../../models/sphere_rolling_down_incline.yaml")),
    ("models/sphere_sliding_to_rolling.yaml", include_str!("../../../models/sphere_sliding_to_rolling.yaml")),
    ("models/stiff_damper.yaml", include_str!("../../../models/stiff_damper.yaml")),
    ("models/tumbling_boxes.yaml", include_str!("../../../models/tumbling_boxes.yaml")),
];

/// SHA-256 of a model file's text, hex.
fn text_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A model built into the binary (`validate`'s benchmarks): [`from_text`] without looking for its
/// reference file on disk, which the caller carries beside it.
pub fn from_embedded(file: &str, text: &str) -> Result<Model, ConfigError> {
    let raw: RawModel = parse_as(file, text)?;
    let mut m = build::build_checked(file, &raw, false, DEFAULT_ASSEMBLY_BYTES)?;
    m.text_hash = text_hash(text);
    Ok(m)
}

/// A located error in a model file.
pub(crate) fn fail<T, S>(file: &str, span: &Spanned<S>, message: String) -> Result<T, ConfigError> {
    Err(ConfigError { file: file.to_string(), location: at(span), message })
}
