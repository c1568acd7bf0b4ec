//! Malformed model files: one clear line each (file:line:col, the field, the bad value, the valid
//! choices), exit status 2, nothing run and no report written.

mod common;

use common::{BIN, temp_dir};
use std::process::{Command, Stdio};

/// A small valid model the cases break one field at a time.
const MODEL: &str = "model: two_bars
summary: two bars hinged to the world and to each other, the lower one held by a spring to a world point
length_scale: 2
energy_scale: {joules: 20, definition: \"2 m g L\"}
bodies:
  - {name: upper, kind: rigid2, mass: 1, inertia: 0.0833, position: [0.5, 0], angle: 0}
  - {name: lower, kind: rigid2, mass: 2, inertia: 0.1667, position: [1.5, 0], angle: 0}
forces:
  - {type: gravity, g: [0, -9.81]}
  - {type: spring, a: {body: lower, point: [0.5, 0]}, b: {world: [2, 1]}, stiffness: 10}
joints:
  - {type: revolute, a: upper, b: world, at: [0, 0]}
  - {type: revolute, a: upper, b: lower, at: [1, 0]}
outputs:
  - {name: bend, value: lower.angle - upper.angle}
";

const CONFIG: &str = "name: models
scene: {model: model.yaml}
formulations: [{name: force}]
solvers: [{name: dense_lu}]
integrators: [{name: rk4}]
steps: [0.01]
duration: 0.1
sample_interval: 0.05
";

/// Runs `config` (with `model` beside it as model.yaml); returns (exit code, stderr, whether a
/// report directory appeared).
fn run(tag: &str, config: &str, model: &str) -> (i32, String, bool) {
    let dir = temp_dir(tag);
    std::fs::write(dir.join("model.yaml"), model).unwrap();
    std::fs::write(dir.join("config.yaml"), config).unwrap();
    let reports = dir.join("reports");
    let out = Command::new(BIN)
        .arg("run")
        .arg(dir.join("config.yaml"))
        .arg("--reports")
        .arg(&reports)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&out.stderr).to_string(), reports.join("models").exists())
}

fn broken(from: &str, to: &str) -> String {
    assert!(MODEL.contains(from), "{from}");
    MODEL.replacen(from, to, 1)
}

#[test]
fn the_base_model_runs() {
    let (code, stderr, report) = run("base", CONFIG, MODEL);
    assert_eq!(code, 0, "{stderr}");
    assert!(report);
}

#[test]
fn every_malformed_model_is_one_clear_line_with_exit_2() {
    let unreachable =
        broken("outputs:", "  - {type: revolute, a: lower, b: world, local_a: [0.5, 0], local_b: [10, 0]}\noutputs:");
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &[&str])> = vec![
        ("unknown body kind", broken("kind: rigid2", "kind: rigid4"), &["bodies[0].kind", "`rigid4`", "particle2, particle3, rigid2, rigid3", "model.yaml:6:"]),
        ("negative mass", broken("mass: 1,", "mass: -1,"), &["body `upper`", "mass", "-1", "positive"]),
        ("rigid body without inertia", broken("inertia: 0.0833, ", ""), &["body `upper`", "inertia"]),
        ("two inertias in the plane", broken("inertia: 0.0833", "inertia: [1, 2]"), &["inertia", "2 numbers", "one"]),
        ("a 3D position in the plane", broken("position: [0.5, 0]", "position: [0.5, 0, 0]"), &["position", "3 numbers", "expected 2"]),
        ("not a finite angle", broken("angle: 0}", "angle: .nan}"), &["angle", "finite"]),
        ("a repeated body name", broken("name: lower", "name: upper"), &["bodies[1].name", "`upper`", "earlier body"]),
        ("a body called world", broken("name: lower", "name: world"), &["bodies[1].name", "`world`"]),
        ("an orientation on a planar body", broken("angle: 0}", "orientation: {quaternion: [1, 0, 0, 0]}}"), &["rigid2", "`angle`", "not `orientation`"]),
        (
            "an unquoted value with commas in a flow map",
            broken("value: lower.angle - upper.angle", "value: lower.point(0.5, 0).x"),
            &["unknown field `0)", "must be quoted"],
        ),
        ("an unknown force", broken("type: gravity", "type: gravitation"), &["forces[0]", "`gravitation`", "gravity, spring, constant, torque, gyroscopic"]),
        ("a field the force does not take", broken("stiffness: 10}", "stiffness: 10, torque: 1}"), &["forces[1]", "`torque`", "does not apply to `spring`", "stiffness"]),
        ("a spring without stiffness", broken(", stiffness: 10}", "}"), &["forces[1]", "`spring` needs field `stiffness`"]),
        ("a spring to nothing", broken("b: {world: [2, 1]}", "b: {world: [2, 1], body: upper}"), &["forces[1]", "`body`", "`world`", "not both"]),
        ("a negative stiffness", broken("stiffness: 10}", "stiffness: -10}"), &["stiffness", "-10", "[0, 1e100]"]),
        ("an unknown joint type", broken("type: revolute, a: upper, b: world", "type: hinge2, a: upper, b: world"), &["joints[0].type", "`hinge2`", "revolute", "weld"]),
        ("an unknown body in a joint", broken("a: upper, b: world", "a: uper, b: world"), &["joints[0]", "`uper`", "expected one of: upper, lower"]),
        ("a field the joint does not take", broken("at: [0, 0]}", "at: [0, 0], radius: 1}"), &["joints[0]", "`radius`", "does not apply to `revolute`", "local_a"]),
        ("a point given twice", broken("at: [0, 0]}", "at: [0, 0], local_a: [-0.5, 0]}"), &["joints[0]", "`at`", "`local_a`", "not both"]),
        ("a joint on the wrong kind of body", broken("type: revolute, a: upper, b: world, at: [0, 0]", "type: circle, a: upper, center: [0, 0]"), &["joints[0]", "rigid-2D", "`circle` joins particle-2D"]),
        ("a joint from a body to itself", broken("a: upper, b: lower", "a: upper, b: upper"), &["joints[1]", "same body", "upper"]),
        ("a joint point with three numbers in the plane", broken("at: [1, 0]", "at: [1, 0, 0]"), &["joints[1]", "`at`", "3 numbers", "expected 2"]),
        ("an output of no address", broken("lower.angle - upper.angle", "lower.angel - upper.angle"), &["outputs[0]", "`lower.angel`", "no body address"]),
        ("an output mixing units", broken("lower.angle - upper.angle", "lower.angle - upper.x"), &["outputs[0]", "same unit"]),
        ("an output with an empty term", broken("lower.angle - upper.angle", "lower.angle - - upper.angle"), &["outputs[0]", "empty term"]),
        ("an unknown top-level field", broken("length_scale: 2", "length_scale: 2\ncolour: red"), &["colour"]),
        ("a zero length scale", broken("length_scale: 2", "length_scale: 0"), &["length_scale", "positive"]),
        ("no energy scale", broken("energy_scale: {joules: 20, definition: \"2 m g L\"}\n", ""), &["energy_scale"]),
        ("a kept coordinate that is none", broken("outputs:", "assemble: {keep: [upper.z]}\noutputs:"), &["assemble.keep", "`upper.z`", "no coordinate"]),
        ("a mechanism that cannot be assembled", unreachable, &["cannot be assembled", "joints[2] (revolute)", "1e-9 × length_scale"]),
        ("a subnormal mass", broken("mass: 1,", "mass: 1e-320,"), &["mass", "1e-320", "[1e-100, 1e100]"]),
        ("a position at 1e308 m", broken("position: [0.5, 0]", "position: [1e308, 0]"), &["position", "1e308", "magnitude at most 1e100"]),
        ("a joint far from the mechanism", broken("at: [0, 0]}", "at: [0, 1e9]}"), &["joints[0]", "`at`", "1e9", "within 2e6 m of the origin"]),
        ("an angle of 1e300 rad", broken("angle: 0}", "angle: 1e300}"), &["angle", "1e300"]),
        ("a stiffness of 1e308", broken("stiffness: 10}", "stiffness: 1e308}"), &["stiffness", "1e308", "[0, 1e100]"]),
        ("an infinite rest length", broken("stiffness: 10}", "stiffness: 10, rest_length: .inf}"), &["rest_length", "inf", "[0, 1e100]"]),
        ("a model name with a control character", broken("model: two_bars", "model: \"two\\u0007bars\""), &["field `model`", "two\\u{7}bars", "letters, digits"]),
        ("a drive of no coordinate", broken("outputs:", "drives: [{coordinate: upper.w, rate: 1}]\noutputs:"), &["drives[0]", "`upper.w`", "no coordinate", "x|y|z|angle"]),
        ("a drive of an unknown body", broken("outputs:", "drives: [{coordinate: middle.x}]\noutputs:"), &["drives[0]", "field `coordinate` = `middle`", "upper, lower"]),
        ("a drive without a coordinate", broken("outputs:", "drives: [{rate: 1}]\noutputs:"), &["model.yaml:14:", "missing field `coordinate`"]),
        ("a drive with an unknown field", broken("outputs:", "drives: [{coordinate: upper.angle, speed: 1}]\noutputs:"), &["field `speed`: unknown field `speed`", "coordinate, relative_to, start, rate, amplitude, omega, phase"]),
        ("a drive at NaN rad/s", broken("outputs:", "drives: [{coordinate: upper.angle, rate: .nan}]\noutputs:"), &["drives[0]", "`rate`", "NaN", "finite"]),
        ("a sphere on a planar body", broken("outputs:", "contact: {shapes: [{body: upper, sphere: 0.1}]}\noutputs:"), &["contact.shapes[0]", "rigid2", "circle", "polygon"]),
        ("a contact shape on no body", broken("outputs:", "contact: {shapes: [{body: ghost, sphere: 0.1}]}\noutputs:"), &["contact.shapes[0].body", "`ghost`", "upper, lower"]),
        ("a contact plane with a zero normal", broken("outputs:", "contact: {planes: [{normal: [0, 0, 0]}]}\noutputs:"), &["contact.planes[0].normal", "not all 0"]),
        ("a restitution of 2", broken("outputs:", "contact: {restitution: 2}\noutputs:"), &["contact.restitution", "= 2", "[0, 1]"]),
        ("a reference file that is not there", broken("outputs:", "reference: {file: nothere.csv}\noutputs:"), &["reference.file", "`nothere.csv`", "no such file"]),
        ("a drive relative to its own body", broken("outputs:", "drives: [{coordinate: upper.angle, relative_to: upper}]\noutputs:"), &["drives[0]", "`relative_to` = `upper`", "another body"]),
        ("a drive starting 1e300 m out", broken("outputs:", "drives: [{coordinate: lower.x, start: 1e300}]\noutputs:"), &["drives[0]", "`start`", "1e300", "at most 2e6 m"]),
        ("a drive function with an unknown symbol", broken("outputs:", "drives: [{coordinate: upper.angle, function: \"sin(x * t)\"}]\noutputs:"), &["drives[0]", "field `function` = `sin(x * t)`", "unknown symbol `x`", "sin, cos"]),
        ("a drive function dividing by zero at t = 0", broken("outputs:", "drives: [{coordinate: upper.angle, function: \"1 / t\"}]\noutputs:"), &["drives[0]", "`function`", "division by zero at t = 0 s"]),
        ("a drive function outside its domain", broken("outputs:", "drives: [{coordinate: upper.angle, function: \"ln(t)\"}]\noutputs:"), &["drives[0]", "`ln` of 0", "outside its domain"]),
        ("a drive function next to a rate", broken("outputs:", "drives: [{coordinate: upper.angle, rate: 1, function: \"t\"}]\noutputs:"), &["drives[0]", "`rate`", "next to `function`"]),
        ("a drive function that does not parse", broken("outputs:", "drives: [{coordinate: upper.angle, function: \"(t + 1\"}]\noutputs:"), &["drives[0]", "column", "expected `)`"]),
        ("a drive table whose times go back", broken("outputs:", "drives: [{coordinate: upper.angle, table: {t: [0, 0.2, 0.1], value: [0, 1, 2]}}]\noutputs:"), &["drives[0]", "`table`", "`t[2]` = 0.1 does not follow `t[1]` = 0.2", "strictly increasing"]),
        ("a drive table with NaN", broken("outputs:", "drives: [{coordinate: upper.angle, table: {t: [0, 1], value: [0, .nan]}}]\noutputs:"), &["drives[0]", "`value[1]` = NaN", "finite"]),
        ("a drive table starting after t = 0", broken("outputs:", "drives: [{coordinate: upper.angle, table: {t: [0.5, 1], value: [0, 1]}}]\noutputs:"), &["drives[0]", "`t[0]` = 0.5 s", "at or before t = 0"]),
        ("a drive with a table and a function", broken("outputs:", "drives: [{coordinate: upper.angle, function: \"t\", table: {t: [0, 1], value: [0, 1]}}]\noutputs:"), &["drives[0]", "`function` and `table`", "takes one"]),
        ("a pin between two rigid bodies", broken("type: revolute, a: upper, b: lower", "type: pin, a: upper, b: lower"), &["joints[1] (pin)", "rigid-2D", "`pin` joins particle-2D"]),
        ("a line of the world as on_line", broken("outputs:", "\noutputs:").replace("  - {type: revolute, a: upper, b: lower, at: [1, 0]}", "  - {type: on_line, a: lower, b: world, axis: [1, 0]}"), &["joints[1] (on_line)", "needs a body `b`"]),
        ("a plane of a body in the plane", broken("outputs:", "\noutputs:").replace("  - {type: revolute, a: upper, b: lower, at: [1, 0]}", "  - {type: on_plane, a: upper, b: lower, axis: [1, 0]}"), &["joints[1] (on_plane)", "rigid-2D", "particle-3D"]),
        ("a line of no direction", broken("outputs:", "\noutputs:").replace("  - {type: revolute, a: upper, b: lower, at: [1, 0]}", "  - {type: on_line, a: upper, b: lower, axis: [0, 0]}"), &["joints[1] (on_line)", "`axis`", "zero vector"]),
        ("a planar joint's angle driven", broken("type: revolute, a: upper, b: lower", "name: knee, type: revolute, a: upper, b: lower").replace("outputs:", "drives: [{coordinate: knee.angle, rate: 1}]\noutputs:"), &["drives[0]", "`knee.angle`", "revolute joint", "hinge to the world", "relative_to"]),
        ("a drive named like a joint", broken("type: revolute, a: upper, b: lower", "name: knee, type: revolute, a: upper, b: lower").replace("outputs:", "drives: [{name: knee, coordinate: upper.angle, rate: 1}]\noutputs:"), &["drives[0]", "field `name` = `knee`", "no other joint, drive or body"]),
        ("a joint named like a body", broken("type: revolute, a: upper, b: lower", "name: lower, type: revolute, a: upper, b: lower"), &["joints[1]", "field `name` = `lower`", "no other joint, drive or body"]),
        ("a multiplier row out of range", broken("{name: bend, value: lower.angle - upper.angle}", "{name: bend, value: knee.lambda(2)}").replace("type: revolute, a: upper, b: lower", "name: knee, type: revolute, a: upper, b: lower"), &["outputs[0]", "`knee.lambda(2)`", "k in 0..1"]),
        ("an output factor that is no number", broken("lower.angle - upper.angle", "two * lower.angle"), &["outputs[0]", "`two`", "no factor"]),
        ("a multiplier as a branch invariant", broken("outputs:", "branch: [{value: knee.lambda, min: -1, max: 1}]\noutputs:").replace("type: revolute, a: upper, b: lower", "name: knee, type: revolute, a: upper, b: lower"), &["branch[0]", "multiplier is not"]),
    ];
    assert!(cases.len() >= 20);
    for (i, (what, model, needles)) in cases.iter().enumerate() {
        let stderr = refused(what, run(&format!("case{i}"), CONFIG, model), needles);
        assert!(stderr.contains("model.yaml"), "{what}: the file is not named: {stderr}");
    }
}

/// Asserts that a run was refused as bad input — exit 2, one line holding every needle, no
/// report — and returns the line.
fn refused(what: &str, (code, stderr, report): (i32, String, bool), needles: &[&str]) -> String {
    assert_eq!(code, 2, "{what}: exit {code}, stderr {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: not one line: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{what}: `{n}` missing from: {stderr}");
    }
    assert!(!report, "{what}: a report was written");
    println!("{what}: {}", stderr.trim_end());
    stderr
}

/// A small model in space with contact, for the shape cases (a shape's size is checked once its
/// body is known to be rigid3).
const MODEL_3D: &str = "model: block
summary: a block on the ground
length_scale: 1
energy_scale: {joules: 1, definition: \"m g h\"}
bodies:
  - {name: block, kind: rigid3, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0.1]}
  - {name: bead, kind: particle3, mass: 1, position: [1, 0, 0.1]}
forces:
  - {type: gravity, g: [0, 0, -9.81]}
contact:
  shapes:
    - {body: block, box: [0.1, 0.1, 0.1]}
  planes:
    - {normal: [0, 0, 1]}
outputs:
  - {name: z, value: block.z}
";

/// Bad contact shapes (zero, negative or NaN sizes, a flat or too small hull, two shapes in one
/// entry, a shape on a particle or on the world): one line each naming the field, exit 2.
#[test]
fn bad_contact_shapes_are_one_clear_line_each() {
    let shape = "{body: block, box: [0.1, 0.1, 0.1]}";
    let with = |s: &str| MODEL_3D.replacen(shape, s, 1);
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &[&str])> = vec![
        ("a box of zero width", with("{body: block, box: [0.1, 0, 0.1]}"), &["contact.shapes[0].box", "= 0", "positive size"]),
        ("a negative radius", with("{body: block, sphere: -0.1}"), &["contact.shapes[0].sphere", "-0.1", "positive size"]),
        ("a NaN capsule radius", with("{body: block, capsule: {radius: .nan, half_height: 0.1}}"), &["contact.shapes[0].capsule.radius", "NaN"]),
        ("a cylinder without a height", with("{body: block, cylinder: {radius: 0.1}}"), &["missing field `half_height`"]),
        ("a flat hull", with("{body: block, hull: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}"), &["contact.shapes[0].hull", "4 points that span no volume"]),
        ("a hull of 3 points", with("{body: block, hull: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}"), &["contact.shapes[0].hull", "3 points"]),
        ("a hull point of 2 numbers", with("{body: block, hull: [[0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}"), &["contact.shapes[0].hull[0]", "3 finite numbers"]),
        ("a hull point 1e9 m out", with("{body: block, hull: [[0, 0, 1e9], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}"), &["contact.shapes[0].hull[0]", "within 1e6 m"]),
        ("a hull point of NaN", with("{body: block, hull: [[0, 0, .nan], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}"), &["contact.shapes[0].hull[0]", "finite"]),
        ("two shapes in one entry", with("{body: block, box: [0.1, 0.1, 0.1], sphere: 0.1}"), &["contact.shapes[0]", "exactly one of", "hull"]),
        ("a shape on a particle", with("{body: bead, sphere: 0.1}"), &["contact.shapes[0].body", "particle-3D", "rigid3", "collides as a point"]),
        ("a shape on the world", with("{body: world, sphere: 0.1}"), &["contact.shapes[0].body", "`world`", "block, bead"]),
        ("a particle in the plane among shapes in space", MODEL_3D.replace("kind: particle3, mass: 1, position: [1, 0, 0.1]", "kind: particle2, mass: 1, position: [1, 0.1]"), &["`bead`", "particle-2D", "collides as a point", "expected kind particle3"]),
    ];
    let many = format!("{{body: block, hull: [{}]}}", vec!["[0, 0, 0]"; 10_001].join(", "));
    let cases =
        cases.into_iter().chain([("a hull of 10001 points", with(&many), &["10001 points", "at most 10000"][..])]);
    for (i, (what, model, needles)) in cases.enumerate() {
        refused(what, run(&format!("shape{i}"), CONFIG, &model), needles);
    }
    let (code, stderr, _) = run(
        "shape_ok",
        &CONFIG.replace("force", "pgs").replace("dense_lu", "gauss_seidel").replace("integrators: [{name: rk4}]\n", ""),
        MODEL_3D,
    );
    assert_eq!(code, 0, "the base 3D model runs: {stderr}");
}

#[test]
fn configs_that_name_a_model_badly_are_one_line_too() {
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &[&str])> = vec![
        ("a missing model file", CONFIG.replace("model.yaml", "nothere.yaml"), &["nothere.yaml", "cannot read the model", "no such file"]),
        ("a name and a model", CONFIG.replace("{model: model.yaml}", "{name: pendulum, model: model.yaml}"), &["scene", "`name`", "`model`", "not both"]),
        ("parameters for a model", CONFIG.replace("{model: model.yaml}", "{model: model.yaml, params: {length: 2}}"), &["scene.params.length", "declares no parameters"]),
        ("neither a name nor a model", CONFIG.replace("{model: model.yaml}", "{params: {length: 2}}"), &["scene", "`name`", "`model`"]),
    ];
    for (i, (what, config, needles)) in cases.iter().enumerate() {
        refused(what, run(&format!("config{i}"), config, MODEL), needles);
    }
}

#[test]
fn draw_writes_a_picture_of_a_model_and_refuses_a_bad_one() {
    let dir = temp_dir("draw");
    std::fs::write(dir.join("model.yaml"), MODEL).unwrap();
    let out = dir.join("pictures");
    let ok = Command::new(BIN).arg("draw").arg(dir.join("model.yaml")).arg("--out").arg(&out).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let svg = std::fs::read_to_string(out.join("two_bars.svg")).unwrap();
    // Both bodies named, both joints drawn, the spring drawn as a path, the world anchors hatched.
    for needle in [">upper<", ">lower<", ">revolute<", "<path d=\"M", "stroke=\"#444\""] {
        assert!(svg.contains(needle), "`{needle}` missing from the SVG");
    }
    let png = std::fs::read(out.join("two_bars.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");

    std::fs::write(dir.join("bad.yaml"), broken("kind: rigid2", "kind: rigid4")).unwrap();
    let bad = Command::new(BIN).arg("draw").arg(dir.join("bad.yaml")).arg("--out").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);
    assert!(stderr.contains("bad.yaml:6:25") && stderr.contains("rigid4"), "{stderr}");
}

#[test]
fn check_describes_a_model_file_with_its_redundant_rows_and_assembly() {
    // The world pivot written twice (an over-constrained model, as Bricard's or a parallelogram
    // with a redundant bar are) and the upper bar declared 2 cm off: assembly still converges
    // (its Tikhonov term takes the redundant rows), and `check` names the redundancy.
    let dir = temp_dir("check");
    // (Body-frame anchors: a world point `at` would be read at the shifted pose, and two pivots
    // read from different poses disagree — which assembly reports as joints that cannot be met.)
    let pivot = "{type: revolute, a: upper, b: world, local_a: [-0.5, 0], local_b: [0, 0]}";
    let model = broken("position: [0.5, 0]", "position: [0.52, 0.01]").replacen(
        "{type: revolute, a: upper, b: world, at: [0, 0]}",
        &format!("{pivot}\n  - {pivot}"),
        1,
    );
    std::fs::write(dir.join("model.yaml"), &model).unwrap();
    let out = Command::new(BIN).arg("check").arg(dir.join("model.yaml")).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    println!("{stdout}");
    assert!(stdout.contains("rank of J at q0: 4 of 6 rows; 2 degrees of freedom"), "{stdout}");
    assert!(stdout.contains("redundant"), "{stdout}");
    assert!(stdout.contains("assembly moved positions by at most 2."), "{stdout}");
}

#[test]
fn animate_writes_an_animated_png_of_recorded_cells_and_refuses_what_it_cannot_draw() {
    let dir = temp_dir("animate");
    std::fs::write(dir.join("model.yaml"), MODEL).unwrap();
    let recorded = CONFIG.replace("formulations: [{name: force}]", "formulations: [{name: force}, {name: lagrangian}]")
        + "record: [q]\ntiming: {repeats: 0}\n";
    std::fs::write(dir.join("config.yaml"), recorded).unwrap();
    let reports = dir.join("reports");
    let run =
        Command::new(BIN).arg("run").arg(dir.join("config.yaml")).arg("--reports").arg(&reports).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = reports.join("models");
    let animate = |extra: &[&str]| {
        Command::new(BIN).arg("animate").arg(dir.join("model.yaml")).arg(&report).args(extra).output().unwrap()
    };
    let out = dir.join("pictures");
    let ok = animate(&["--frames", "7", "--out", out.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let png = std::fs::read(out.join("two_bars_animation.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // An animated PNG: the animation control chunk says 7 frames, and there are 7 frame controls.
    let at = png.windows(4).position(|w| w == b"acTL").expect("an acTL chunk");
    assert_eq!(u32::from_be_bytes(png[at + 4..at + 8].try_into().unwrap()), 7);
    assert_eq!(png.windows(4).filter(|w| *w == b"fcTL").count(), 7);

    // A cell that was not recorded, and a directory without states: one line, exit 2.
    for (extra, needle) in [(vec!["--cells", "5"], "cell 5 has no recorded positions"), (vec![], "")] {
        let (o, needle) = if needle.is_empty() {
            let o = Command::new(BIN).arg("animate").arg(dir.join("model.yaml")).arg(&dir).output().unwrap();
            (o, "cannot read")
        } else {
            (animate(&extra), needle)
        };
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
}

#[test]
fn principal_moments_no_body_can_have_are_refused() {
    // Regression: rigid-body moments with I3 > I1 + I2 were accepted (no mass distribution has
    // them: I1 + I2 − I3 = 2 ∫ z² dm ≥ 0). A flat body's moments, I3 = I1 + I2, are accepted.
    let text = |i: &str| {
        format!(
            "model: m\nlength_scale: 1\nenergy_scale: {{joules: 1, definition: \"1 J\"}}\nbodies:\n  - {{name: A, kind: rigid3, mass: 1, inertia: {i}, position: [0, 0, 0]}}\n"
        )
    };
    let e = tinkertoy::scene::model_file::from_text("m.yaml", &text("[0.02, 0.09, 0.2]")).unwrap_err().to_string();
    assert!(e.contains("inertia") && e.contains("no body's") && e.contains("I3 <= I1 + I2"), "{e}");
    assert!(tinkertoy::scene::model_file::from_text("m.yaml", &text("[0.02, 0.09, 0.11]")).is_ok());
}

#[test]
fn a_quoted_number_is_not_a_number() {
    // Regression: `mass: "1"` was read as the number 1 (the YAML reader parses a quoted scalar into
    // a numeric field). Quoted, it is text: refused in model files, configs and parameter maps,
    // one line naming the field; unquoted the same model is accepted.
    let model = |mass: &str| {
        format!(
            "model: m\nlength_scale: 1\nenergy_scale: {{joules: 1, definition: \"1 J\"}}\nbodies:\n  - {{name: A, kind: particle2, mass: {mass}, position: [0, 0]}}\n"
        )
    };
    assert!(tinkertoy::scene::model_file::from_text("m.yaml", &model("1")).is_ok());
    for quoted in ["\"1\"", "'1'", "\"1e-3\""] {
        let e = tinkertoy::scene::model_file::from_text("m.yaml", &model(quoted)).unwrap_err().to_string();
        assert!(e.contains("field `mass`") && e.contains("is quoted, so it is text, not a number"), "{e}");
    }
    let config = |duration: &str, omega: &str| {
        format!(
            "name: q\nscene: {{name: pendulum}}\nformulations: [{{name: force, params: {{omega: {omega}}}}}]\nsolvers: [{{name: dense_lu}}]\nintegrators: [{{name: rk4}}]\nsteps: [0.01]\nduration: {duration}\nsample_interval: 0.1\n"
        )
    };
    assert!(tinkertoy::experiment::config::parse("q.yaml", &config("1", "5")).is_ok());
    for (text, field) in [(config("\"1\"", "5"), "duration"), (config("1", "\"5\""), "omega")] {
        let e = tinkertoy::experiment::config::parse("q.yaml", &text).unwrap_err().to_string();
        assert!(e.contains(&format!("field `{field}`")) && e.contains("is quoted"), "{e}");
    }
}

/// A small model in the plane with contact: a square and a disk on rigid2 bodies over a line.
const MODEL_2D: &str = "model: squares
summary: a square and a disk on the ground
length_scale: 1
energy_scale: {joules: 1, definition: \"m g h\"}
bodies:
  - {name: block, kind: rigid2, mass: 1, inertia: 0.0067, position: [0, 0.1]}
  - {name: disk, kind: rigid2, mass: 1, inertia: 0.005, position: [1, 0.1]}
  - {name: bead, kind: particle2, mass: 1, position: [3, 0.1]}
forces:
  - {type: gravity, g: [0, -9.81]}
contact:
  shapes:
    - {body: block, box: [0.1, 0.1]}
    - {body: disk, circle: 0.1}
  planes:
    - {normal: [0, 1]}
outputs:
  - {name: y, value: block.y}
";

/// Bad planar contact input (shapes of space on rigid2 bodies, flat polygons, a plane normal of
/// three numbers, a particle among planar shapes): one line each naming the field, exit 2;
/// the base model runs under pgs.
#[test]
fn bad_planar_contact_shapes_are_one_clear_line_each() {
    let shape = "{body: disk, circle: 0.1}";
    let with = |s: &str| MODEL_2D.replacen(shape, s, 1);
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &[&str])> = vec![
        ("a sphere on a rigid2 body", with("{body: disk, sphere: 0.1}"), &["contact.shapes[1]", "rigid2", "circle", "polygon"]),
        ("a box of 3 numbers in the plane", with("{body: disk, box: [0.1, 0.1, 0.1]}"), &["contact.shapes[1].box", "3 numbers", "2 half extents"]),
        ("a zero circle", with("{body: disk, circle: 0}"), &["contact.shapes[1].circle", "positive size"]),
        ("a collinear polygon", with("{body: disk, polygon: [[0, 0], [1, 0], [2, 0]]}"), &["contact.shapes[1].polygon", "span no area"]),
        ("a polygon point of 3 numbers", with("{body: disk, polygon: [[0, 0, 0], [1, 0], [0, 1]]}"), &["contact.shapes[1].polygon[0]", "2 finite numbers"]),
        ("a particle among planar shapes", with("{body: bead, circle: 0.1}"), &["contact.shapes[1].body", "particle-2D", "all on rigid2", "rigid-2D"]),
        ("a plane normal of 3 numbers", MODEL_2D.replace("{normal: [0, 1]}", "{normal: [0, 1, 0]}"), &["contact.planes[0].normal", "2 finite numbers", "in the plane"]),
    ];
    for (i, (what, model, needles)) in cases.into_iter().enumerate() {
        refused(what, run(&format!("planar{i}"), CONFIG, &model), needles);
    }
    let (code, stderr, _) = run(
        "planar_ok",
        &CONFIG.replace("force", "pgs").replace("dense_lu", "gauss_seidel").replace("integrators: [{name: rk4}]\n", ""),
        MODEL_2D,
    );
    assert_eq!(code, 0, "the base planar model runs: {stderr}");
}

/// A hinge drive where none can be (a hinge between two moving bodies, `relative_to` on a
/// hinge's angle): one line each, exit 2.
#[test]
fn hinge_drives_that_cannot_be_are_one_line_each() {
    let model = "model: arm
length_scale: 1
energy_scale: {joules: 1, definition: \"1 J\"}
bodies:
  - {name: upper, kind: rigid3, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0]}
  - {name: lower, kind: rigid3, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1, 0, 0]}
joints:
  - {name: shoulder, type: hinge, a: upper, b: world, at: [0, 0, 0], axis: [0, 0, 1]}
  - {name: elbow, type: hinge, a: upper, b: lower, at: [0.5, 0, 0], axis: [0, 0, 1]}
drives:
  - {coordinate: shoulder.angle, rate: 1}
outputs:
  - {name: x, value: lower.x}
";
    let (code, stderr, _) = run("hinge_ok", CONFIG, model);
    assert_eq!(code, 0, "a hinge to the world is driven: {stderr}");
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &[&str])> = vec![
        ("a hinge between two moving bodies", model.replace("shoulder.angle", "elbow.angle"), &["drives[0]", "`elbow`", "two moving bodies", "13 velocity coordinates"]),
        ("relative_to on a hinge", model.replace("rate: 1}", "rate: 1, relative_to: lower}"), &["drives[0]", "`relative_to`", "already relative"]),
    ];
    for (i, (what, model, needles)) in cases.into_iter().enumerate() {
        refused(what, run(&format!("hinge{i}"), CONFIG, &model), needles);
    }
}
