use tinkertoy::experiment::{CellSpec, run};
use tinkertoy::formulation::registry as fr;
use tinkertoy::integrator::{Control, registry as ir};
use tinkertoy::linsolve::registry as sr;
use tinkertoy::params::resolve;
use tinkertoy::scene::registry as scr;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scene = scr::find(&args[1]).unwrap().build_with(&[]).unwrap();
    let f = fr::find(&args[2]).unwrap();
    let s = sr::find(&args[3]).unwrap();
    let i = ir::find(&args[4]).unwrap();
    let x: f64 = args[5].parse().unwrap();
    let control = if matches!(i.kind, ir::IntegratorKind::Adaptive { .. }) {
        Control::Adaptive { rtol: x, atol: x }
    } else {
        Control::Fixed { h: x }
    };
    let cell = CellSpec {
        formulation: f,
        formulation_params: resolve("f", f.params, &[]).unwrap(),
        solver: s,
        solver_params: resolve("s", s.params, &[]).unwrap(),
        integrator: i,
        control,
        duration: 2.0,
        sample_interval: 0.5,
        drift_bound: 100.0,
        record_state: false,
        stabilizer: tinkertoy::stabilization::registry::find("none").expect("registered"),
        stabilizer_params: Default::default(),
    };
    let r = run(&scene, &cell);
    for smp in &r.samples {
        println!(
            "t={:.3} E={:.9} dE={:.3e} C={:.3e} Jv={:.3e} P={:.3e} ref={:?}",
            smp.t, smp.energy, smp.energy_error, smp.drift_position, smp.drift_velocity, smp.power, smp.reference_error
        );
    }
    println!("{:?}", r.summary);
}
