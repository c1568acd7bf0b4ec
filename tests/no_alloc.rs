//! Per-step kernels allocate nothing once a run is prepared: a counting global allocator (per
//! thread) watches repeated sparse Cholesky solves and impulse / RATTLE / force steps on a chain,
//! and the stepping thread of a parallel coloured sweep.

use std::alloc::{GlobalAlloc, Layout, System as SysAlloc};
use std::cell::Cell;
use tinkertoy::formulation::{Dynamics, registry as formulations};
use tinkertoy::integrator::{Integrator, SymplecticEuler};
use tinkertoy::linsolve::{LinearSolver, Operator, Reg, SparseCholesky, registry as solvers};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::sparse::NormalMatrix;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        unsafe { SysAlloc.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { SysAlloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        unsafe { SysAlloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCS.with(|c| c.get());
    f();
    ALLOCS.with(|c| c.get()) - before
}

fn chain() -> tinkertoy::scene::Scene {
    scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(200.0))]).unwrap()
}

#[test]
fn sparse_cholesky_refactor_and_solve_allocate_nothing() {
    // Positive control: the counter sees an allocation on this thread.
    assert!(allocations_during(|| drop(std::hint::black_box(vec![0u8; 64]))) >= 1);
    let scene = chain();
    let mut jac = scene.system.jacobian_layout();
    scene.system.fill_jacobian(&scene.q0, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let mut s = SparseCholesky::default();
    s.prepare(&op).unwrap();
    let b = vec![1.0; op.dim()];
    let mut x = vec![0.0; op.dim()];
    s.solve(&op, &b, &mut x).unwrap();
    let n = allocations_during(|| {
        for _ in 0..10 {
            s.solve(&op, &b, &mut x).unwrap();
            s.solve_same(&op, &b, &mut x).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations in 20 solves");
}

#[test]
fn impulse_rattle_and_force_steps_allocate_nothing() {
    let scene = chain();
    let full_newton = [("krylov", Scalar::Num(10.0))];
    let stabilized = [("stabilized", Scalar::Bool(true))];
    for (name, params, solver) in [
        ("impulse", &[][..], "sparse_cholesky"),
        ("rattle", &[][..], "sparse_cholesky"),
        ("rattle", &full_newton[..], "sparse_cholesky"),
        ("midpoint", &[][..], "sparse_cholesky"),
        ("generalized_alpha", &[][..], "sparse_cholesky"),
        ("generalized_alpha", &stabilized[..], "sparse_cholesky"),
        ("impulse", &[][..], "gauss_seidel"),
        ("impulse", &[][..], "cg"),
    ] {
        let f = formulations::find(name).unwrap();
        let s = solvers::find(solver).unwrap();
        let Dynamics::Stepper(mut st) = (f.build)(
            &f.params.with("f", params).unwrap(),
            &scene,
            (s.build)(
                &s.params
                    .with(
                        "s",
                        &[("max_iter", Scalar::Num(50.0)), ("require_convergence", Scalar::Bool(false))]
                            .into_iter()
                            .filter(|(k, _)| (s.params.specs)().iter().any(|p| p.name == *k))
                            .collect::<Vec<_>>(),
                    )
                    .unwrap(),
            ),
        )
        .unwrap() else {
            panic!()
        };
        let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
        st.step(1.0 / 60.0, &mut q, &mut v).unwrap(); // first step may size nothing; kept outside
        let n = allocations_during(|| {
            for _ in 0..5 {
                st.step(1.0 / 60.0, &mut q, &mut v).unwrap();
            }
        });
        assert_eq!(n, 0, "{name} + {solver}: {n} allocations in 5 steps");
    }
    let f = formulations::find("force").unwrap();
    let s = solvers::find("sparse_cholesky").unwrap();
    let Dynamics::Ode(mut ode) = (f.build)(
        &f.params.with("f", &[("omega", Scalar::Num(10.0))]).unwrap(),
        &scene,
        (s.build)(&s.params.defaults()),
    )
    .unwrap() else {
        panic!()
    };
    let mut it = SymplecticEuler::new(1.0 / 600.0);
    it.prepare(ode.position_dim(), ode.dim());
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    it.step(ode.as_mut(), &mut q, &mut v, 1.0).unwrap();
    let n = allocations_during(|| {
        for _ in 0..5 {
            it.step(ode.as_mut(), &mut q, &mut v, 1.0).unwrap();
        }
    });
    assert_eq!(n, 0, "force + sparse_cholesky: {n} allocations in 5 steps");
}

#[test]
fn xpbd_newton_steps_allocate_nothing() {
    let scene = chain();
    let f = formulations::find("xpbd_newton").unwrap();
    let fp = [("substeps", Scalar::Num(2.0)), ("iterations", Scalar::Num(3.0)), ("tol", Scalar::Num(1e-9))];
    for solver in ["envelope_ldlt", "sparse_cholesky"] {
        let s = solvers::find(solver).unwrap();
        let Dynamics::Stepper(mut st) =
            (f.build)(&f.params.with("f", &fp).unwrap(), &scene, (s.build)(&s.params.defaults())).unwrap()
        else {
            panic!()
        };
        let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
        st.step(1.0 / 60.0, &mut q, &mut v).unwrap();
        let n = allocations_during(|| {
            for _ in 0..5 {
                st.step(1.0 / 60.0, &mut q, &mut v).unwrap();
            }
        });
        assert_eq!(n, 0, "xpbd newton + {solver}: {n} allocations in 5 steps");
    }
}

#[test]
fn the_parallel_coloured_sweep_allocates_nothing_on_the_stepping_thread() {
    // 20 000 particles: two colours of about 10 000 links, each split into tasks; the steps run on
    // a pool thread (as a cell does), so the tasks run there and on the pool's other thread
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(20_000.0))]).unwrap();
    let (f, s) = (formulations::find("impulse").unwrap(), solvers::find("gauss_seidel").unwrap());
    let sp = [("coloring", Scalar::Bool(true)), ("parallel", Scalar::Bool(true)), ("max_iter", Scalar::Num(4.0))];
    let sp = s.params.with("s", &[&sp[..], &[("require_convergence", Scalar::Bool(false))]].concat()).unwrap();
    let Dynamics::Stepper(mut st) = (f.build)(&f.params.defaults(), &scene, (s.build)(&sp)).unwrap() else { panic!() };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let n = pool.install(|| warm_step_allocations(st.as_mut(), &scene));
    assert_eq!(n, 0, "impulse + parallel gauss_seidel: {n} allocations in 5 steps");
}

/// Allocations in five steps of h = 1/60 s after ten warm-up steps from the scene's start.
fn warm_step_allocations(st: &mut dyn tinkertoy::formulation::Stepper, scene: &tinkertoy::scene::Scene) -> u64 {
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    for _ in 0..10 {
        st.step(1.0 / 60.0, &mut q, &mut v).unwrap();
    }
    allocations_during(|| {
        for _ in 0..5 {
            st.step(1.0 / 60.0, &mut q, &mut v).unwrap();
        }
    })
}

#[test]
fn pgs_contact_steps_and_3d_steps_allocate_nothing_once_warm() {
    // Contact rows are rebuilt every step into vectors that keep their capacity: once the contact
    // set has been seen (a resting stack: the same contacts every step), stepping allocates nothing.
    for (scene_name, name, solver) in [
        ("box_stack", "pgs", "gauss_seidel"),
        ("box_stack", "soft_step", "sparse_cholesky"),
        ("box_stack", "xpbd", "sparse_cholesky"),
        ("chain_3d", "impulse", "sparse_cholesky"),
        ("door", "xpbd", "sparse_cholesky"),
    ] {
        let scene = tinkertoy::scene::registry::find(scene_name).unwrap().build_default(&[]).unwrap();
        let f = formulations::find(name).unwrap();
        let s = solvers::find(solver).unwrap();
        let Dynamics::Stepper(mut st) =
            (f.build)(&f.params.defaults(), &scene, (s.build)(&s.params.defaults())).unwrap()
        else {
            panic!()
        };
        let n = warm_step_allocations(st.as_mut(), &scene);
        assert_eq!(n, 0, "{scene_name}: {name} + {solver}: {n} allocations in 5 steps");
    }
}

/// `pgs` with every contact solver on the solver axis (read from the registry) on the resting
/// box stack: once warm, five more steps allocate nothing — each solver keeps its vectors, and
/// the residual check its velocity vector, across solves (no history is recorded inside a step).
/// The exceptions are named, with their reason, and must still allocate (so that the list
/// shrinks when one is fixed): the solvers that factorise a matrix per iteration or per solve
/// (`newton_ac`, `admm`, `sap`: a sparse LU or Cholesky from faer, whose symbolic and numeric
/// factors are built anew; `lemke`: its dense tableau; `ipm_ccp`: Clarabel's KKT system).
#[test]
fn pgs_with_every_contact_solver_steps_without_allocating() {
    const FACTORISING: [&str; 5] = ["newton_ac", "admm", "sap", "lemke", "ipm_ccp"];
    let scene = tinkertoy::scene::registry::find("box_stack").unwrap().build_default(&[]).unwrap();
    let f = formulations::find("pgs").unwrap();
    let registry = tinkertoy::registry::Registry::builtin();
    let (mut free, mut factorising) = (Vec::new(), Vec::new());
    for s in registry.solvers().iter().filter(|s| s.contact_only() && f.pairs_with(s)) {
        let Dynamics::Stepper(mut st) =
            (f.build)(&f.params.defaults(), &scene, (s.build)(&s.params.defaults())).unwrap()
        else {
            panic!()
        };
        let n = warm_step_allocations(st.as_mut(), &scene);
        if FACTORISING.contains(&s.name) { &mut factorising } else { &mut free }.push((s.name, n));
    }
    assert!(free.len() >= 5 && factorising.len() == FACTORISING.len(), "{free:?} {factorising:?}");
    assert!(free.iter().all(|&(_, n)| n == 0), "allocations in 5 warm steps: {free:?}");
    assert!(factorising.iter().all(|&(_, n)| n > 0), "no longer allocates, take it off the list: {factorising:?}");
}

/// Every registered formulation with every direct solver it pairs with (its own solver if it
/// brings one), on every registered scene (at test size) it applies to, advanced by its own
/// stepping or by RK4: once warm (10 steps), five more steps allocate nothing. A pairing whose
/// warm-up fails numerically (RATTLE's Newton on a fast 3D chain) is not an allocation question
/// and is skipped, but every formulation must be exercised somewhere. Read from the registries,
/// so a new formulation, direct solver or scene is covered without editing this test.
#[test]
fn every_formulation_with_every_direct_solver_steps_without_allocating() {
    use tinkertoy::formulation::registry::FORMULATIONS;
    use tinkertoy::integrator::registry as integrators;
    use tinkertoy::linsolve::registry::{SOLVERS, SolverKind};
    use tinkertoy::scene::registry::SCENES;
    let rk4 = integrators::find("rk4").unwrap();
    let h = 1.0 / 60.0;
    for f in FORMULATIONS {
        // The direct solvers it pairs with; for a contact problem, the projected sweeps it takes.
        let solvers: Vec<_> = SOLVERS
            .iter()
            .filter(|s| f.pairs_with(s) && (s.kind == SolverKind::Direct || !f.system.solver_params_apply()))
            .collect();
        let mut exercised = 0;
        for s in solvers {
            for entry in SCENES {
                let scene = entry.build_small().unwrap();
                let Ok(dynamics) = (f.build)(&f.params.defaults(), &scene, (s.build)(&s.params.defaults())) else {
                    continue;
                };
                let label = format!("{} + {} on {}", f.name, s.name, entry.name);
                let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
                let n = match dynamics {
                    Dynamics::Stepper(mut st) => {
                        if (0..10).any(|_| st.step(h, &mut q, &mut v).is_err()) {
                            continue;
                        }
                        allocations_during(|| {
                            for _ in 0..5 {
                                let _ = st.step(h, &mut q, &mut v);
                            }
                        })
                    }
                    Dynamics::Ode(mut ode) => {
                        let mut it = rk4.build(tinkertoy::integrator::Control::Fixed { h }).unwrap();
                        let (nx, nv) = (ode.position_dim(), ode.dim());
                        it.prepare(nx, nv);
                        let (mut x, mut xd) = (vec![0.0; nx], vec![0.0; nv]);
                        ode.initial(&mut x, &mut xd);
                        if (0..10).any(|_| it.step(ode.as_mut(), &mut x, &mut xd, h).is_err()) {
                            continue;
                        }
                        allocations_during(|| {
                            for _ in 0..5 {
                                let _ = it.step(ode.as_mut(), &mut x, &mut xd, h);
                            }
                        })
                    }
                };
                assert_eq!(n, 0, "{label}: {n} allocations in 5 steps");
                exercised += 1;
            }
        }
        eprintln!("{}: {exercised} (solver, scene) pairs allocate nothing", f.name);
        assert!(exercised > 0, "{}: no direct solver and scene it runs with", f.name);
    }
}

#[test]
fn lagrangian_evaluations_allocate_nothing() {
    // The joint tree (chain) and the tree with loop closures (four-bar, solved by dense Cholesky).
    let four_bar = scenes::find("four_bar").unwrap().build_default(&[]).unwrap();
    for (scene, solver) in [(chain(), "dense_lu"), (four_bar, "dense_cholesky")] {
        let f = formulations::find("lagrangian").unwrap();
        let s = solvers::find(solver).unwrap();
        let Dynamics::Ode(mut ode) = (f.build)(&f.params.defaults(), &scene, (s.build)(&s.params.defaults())).unwrap()
        else {
            panic!()
        };
        let mut it = SymplecticEuler::new(1.0 / 600.0);
        it.prepare(ode.position_dim(), ode.dim());
        let (mut x, mut xd) = (vec![0.0; ode.position_dim()], vec![0.0; ode.dim()]);
        ode.initial(&mut x, &mut xd);
        let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
        it.step(ode.as_mut(), &mut x, &mut xd, 1.0).unwrap();
        let n = allocations_during(|| {
            for _ in 0..5 {
                it.step(ode.as_mut(), &mut x, &mut xd, 1.0).unwrap();
                ode.project(&mut x, &mut xd, 1e-12, 10).unwrap(); // the loop closure's projection
                ode.cartesian(&x, &xd, &mut q, &mut v);
            }
        });
        assert_eq!(n, 0, "lagrangian on {} + {solver}: {n} allocations in 5 steps", scene.name);
    }
}

/// The implicit methods' Newton iterations on the stiff damper (`models/stiff_damper.yaml`):
/// `radau5`'s transformed stages and dense LU, and `generalized_alpha`'s full Newton (GMRES with
/// finite-difference products, which the stiff spring makes it take) allocate nothing per step.
#[test]
fn radau5_and_generalized_alpha_full_newton_allocate_nothing() {
    let path = format!("{}/models/stiff_damper.yaml", env!("CARGO_MANIFEST_DIR"));
    let scene = tinkertoy::scene::model_file::load(&path).unwrap().scene;
    let s = solvers::find("dense_lu").unwrap();
    let f = formulations::find("generalized_alpha").unwrap();
    let Dynamics::Stepper(mut st) = (f.build)(&f.params.defaults(), &scene, (s.build)(&s.params.defaults())).unwrap()
    else {
        panic!()
    };
    let (mut q, mut v) = (scene.q0.clone(), scene.v0.clone());
    st.step(0.1, &mut q, &mut v).unwrap();
    let n = allocations_during(|| {
        for _ in 0..5 {
            st.step(0.1, &mut q, &mut v).unwrap();
        }
    });
    assert_eq!(n, 0, "generalized_alpha full Newton: {n} allocations in 5 steps");
    radau5_steps_allocate_nothing("force", &scene);
}

/// Allocations in five `radau5` steps (tol 1e-6, dense LU) of `formulation` on `scene` after the
/// first, which sets up the workspace (for a DAE, with the multipliers): asserted zero.
fn radau5_steps_allocate_nothing(formulation: &str, scene: &tinkertoy::scene::Scene) {
    let s = solvers::find("dense_lu").unwrap();
    let f = formulations::find(formulation).unwrap();
    let Dynamics::Ode(mut ode) = (f.build)(&f.params.defaults(), scene, (s.build)(&s.params.defaults())).unwrap()
    else {
        panic!("{formulation} yields an ODE")
    };
    let mut it = tinkertoy::integrator::radau5::Radau5::new(1e-6, 1e-6);
    it.prepare(ode.position_dim(), ode.dim());
    let (mut q, mut v) = (vec![0.0; ode.position_dim()], vec![0.0; ode.dim()]);
    ode.initial(&mut q, &mut v);
    it.step(ode.as_mut(), &mut q, &mut v, 10.0).unwrap();
    let n = allocations_during(|| {
        for _ in 0..5 {
            it.step(ode.as_mut(), &mut q, &mut v, 10.0).unwrap();
        }
    });
    assert_eq!(n, 0, "radau5 on {formulation}: {n} allocations in 5 steps");
}

/// `radau5` on the `dae` formulation (index 3, a chain of 10 particles): the multipliers join its
/// state on the first step, and no step after it allocates.
#[test]
fn radau5_on_the_index_3_dae_allocates_nothing() {
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(10.0))]).unwrap();
    radau5_steps_allocate_nothing("dae", &scene);
}
