//! `gauss_seidel`'s `check_every`: skipping the exact residual between sweeps changes nothing but
//! the cost — with a tolerance no sweep reaches, 10 sweeps give the same iterate and the same final
//! residual whether the residual is checked after every sweep or only after the last.

use tinkertoy::linsolve::gauss_seidel::{GaussSeidel, GaussSeidelParams};
use tinkertoy::linsolve::{LinearSolver, Operator, Reg, Stopping};
use tinkertoy::params::Scalar;
use tinkertoy::scene::registry as scenes;
use tinkertoy::sparse::NormalMatrix;

#[test]
fn checking_the_residual_only_after_the_last_sweep_gives_the_same_iterate() {
    let scene = scenes::find("chain").unwrap().build_default(&[("n", Scalar::Num(50.0))]).unwrap();
    let mut jac = scene.system.jacobian_layout();
    scene.system.fill_jacobian(&scene.q0, &mut jac);
    let pattern = NormalMatrix::new(&jac);
    let op = Operator::Normal { jac: &jac, w: scene.system.inv_mass(), pattern: &pattern, reg: Reg::Uniform(0.0) };
    let b: Vec<f64> = (0..op.dim()).map(|i| ((i * 7 % 11) as f64) - 5.0).collect();
    let stop = Stopping { tol: 1e-300, max_iter: 10, require_convergence: false };
    let mut out = Vec::new();
    for check_every in [1, 3, 10] {
        let mut s = GaussSeidel::new(GaussSeidelParams { stop, omega: 1.0, check_every });
        s.prepare(&op).unwrap();
        let mut x = vec![0.0; op.dim()];
        let info = s.solve(&op, &b, &mut x).unwrap();
        assert_eq!(info.iterations, 10);
        out.push((x, info.residual));
    }
    for (x, r) in &out[1..] {
        assert_eq!(x, &out[0].0, "the iterate depends on check_every");
        assert_eq!(*r, out[0].1, "the final residual depends on check_every");
    }
    assert!(out[0].1 > 0.0 && out[0].1 < 1.0, "10 sweeps reduce the residual: {}", out[0].1);
}
