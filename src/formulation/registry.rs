//! The formulation registry: the only list of formulations. Adding a formulation = one file + one
//! line here; the runner, `tinkertoy list` and the conformance tests pick it up.

use super::impulse::ImpulseOptions;
use super::{
    Dynamics, Force, Gains, Impulse, Lagrangian, NotApplicable, Pgs, PgsOptions, Rattle, RattleOptions, SoftStep,
    SoftStepOptions, Xpbd, XpbdOptions,
};
use crate::linsolve::LinearSolver;
use crate::params::{Domain, ParamSpec, ParamValues};
use crate::scene::Scene;

/// Builds a formulation on a scene with a linear solver, or says why it does not apply.
pub type BuildFn = for<'a> fn(&ParamValues, &'a Scene, Box<dyn LinearSolver>) -> Result<Dynamics<'a>, NotApplicable>;

/// One registered formulation.
pub struct FormulationEntry {
    /// Registry name used in configs.
    pub name: &'static str,
    /// One line: level and system solved.
    pub summary: &'static str,
    /// Declared parameters.
    pub params: &'static [ParamSpec],
    /// Checks combinations of parameters (message names the fields); run when a config is read.
    pub check: fn(&ParamValues) -> Result<(), String>,
    /// Builds the dynamics.
    pub build: BuildFn,
}

const FORCE_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "ks",
        default: 0.0,
        unit: "1/s^2",
        domain: Domain::NonNegative,
        doc: "Baumgarte stiffness k_s on C",
    },
    ParamSpec {
        name: "kd",
        default: 0.0,
        unit: "1/s",
        domain: Domain::NonNegative,
        doc: "Baumgarte damping k_d on dC/dt",
    },
    ParamSpec {
        name: "omega",
        default: 0.0,
        unit: "rad/s",
        domain: Domain::NonNegative,
        doc: "feedback frequency; if > 0, k_s = omega^2, k_d = 2 zeta omega",
    },
    ParamSpec {
        name: "zeta",
        default: 1.0,
        unit: "1",
        domain: Domain::NonNegative,
        doc: "feedback damping ratio (with omega)",
    },
];

const IMPULSE_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        default: 0.2,
        unit: "1",
        domain: Domain::NonNegative,
        doc: "Baumgarte factor: fraction of C removed per substep, in [0, 1]",
    },
    ParamSpec {
        name: "warm_start",
        default: 1.0,
        unit: "1",
        domain: Domain::Integer { min: 0, max: 1 },
        doc: "1: start each solve from the previous lambda",
    },
    ParamSpec {
        name: "substeps",
        default: 1.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 100_000 },
        doc: "substeps per step",
    },
];

fn force_gains(p: &ParamValues) -> Gains {
    if p.get("omega") > 0.0 {
        Gains::from_frequency(p.get("omega"), p.get("zeta"))
    } else {
        Gains { ks: p.get("ks"), kd: p.get("kd") }
    }
}

fn check_force(p: &ParamValues) -> Result<(), String> {
    if (p.given("omega") || p.given("zeta")) && (p.given("ks") || p.given("kd")) {
        return Err("formulation force: give the feedback either as (ks, kd) or as (omega, zeta), not both".into());
    }
    Ok(())
}

fn check_impulse(p: &ParamValues) -> Result<(), String> {
    let beta = p.get("beta");
    if beta > 1.0 {
        return Err(format!("formulation impulse: parameter `beta` = {beta} is invalid; expected a number in [0, 1]"));
    }
    Ok(())
}

const RATTLE_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "tol",
        default: 1e-10,
        unit: "units of C",
        domain: Domain::Positive,
        doc: "Newton stops when |C|inf <= tol",
    },
    ParamSpec {
        name: "max_iter",
        default: 50.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 100_000 },
        doc: "Newton iterations per step before the run fails",
    },
];

const XPBD_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "substeps",
        default: 10.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 100_000 },
        doc: "substeps per step",
    },
    ParamSpec {
        name: "iterations",
        default: 1.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 10_000 },
        doc: "projection iterations per substep",
    },
    ParamSpec {
        name: "compliance",
        default: 0.0,
        unit: "units of C per N",
        domain: Domain::NonNegative,
        doc: "compliance alpha of every constraint (0 = rigid)",
    },
    ParamSpec {
        name: "newton",
        default: 0.0,
        unit: "1",
        domain: Domain::Integer { min: 0, max: 1 },
        doc: "1: full Newton iterations (geometric stiffness, residual g, multipliers warm-started)",
    },
    ParamSpec {
        name: "tol",
        default: 0.0,
        unit: "units of C",
        domain: Domain::NonNegative,
        doc: "newton only: stop a substep's iterations once max |C + alpha/h^2 lambda| <= tol (0: always `iterations`)",
    },
];

const SOFT_STEP_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "substeps",
        default: 4.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 100_000 },
        doc: "substeps per step (Box2D default 4)",
    },
    ParamSpec {
        name: "hertz",
        default: 60.0,
        unit: "Hz",
        domain: Domain::Positive,
        doc: "constraint stiffness as a frequency (Box2D jointHertz 60)",
    },
    ParamSpec {
        name: "damping_ratio",
        default: 2.0,
        unit: "1",
        domain: Domain::NonNegative,
        doc: "constraint damping ratio (Box2D jointDampingRatio 2)",
    },
];

const PGS_PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        default: 0.2,
        unit: "1",
        domain: Domain::NonNegative,
        doc: "Baumgarte factor on C and on penetration, per step",
    },
    ParamSpec {
        name: "slop",
        default: 0.001,
        unit: "m",
        domain: Domain::NonNegative,
        doc: "penetration left uncorrected",
    },
    ParamSpec {
        name: "iterations",
        default: 100.0,
        unit: "1",
        domain: Domain::Integer { min: 1, max: 1_000_000 },
        doc: "projected Gauss-Seidel sweeps per step at most",
    },
    ParamSpec {
        name: "tol",
        default: 1e-10,
        unit: "m/s",
        domain: Domain::Positive,
        doc: "sweeps stop when no row changes its velocity by more",
    },
];

/// Every formulation.
pub const FORMULATIONS: &[FormulationEntry] = &[
    FormulationEntry {
        name: "force",
        summary: "acceleration level, J W J^T lambda = -Jdot v - J W Q - ks C - kd Cdot (Witkin eq. 11); an ODE",
        params: FORCE_PARAMS,
        check: check_force,
        build: |p, scene, solver| Ok(Dynamics::Ode(Box::new(Force::new(scene, force_gains(p), solver)?))),
    },
    FormulationEntry {
        name: "impulse",
        summary: "velocity level, J W J^T lambda = -(J v* + beta/h C), sequential impulses with gauss_seidel; a stepper",
        params: IMPULSE_PARAMS,
        check: check_impulse,
        build: |p, scene, solver| {
            let opts = ImpulseOptions {
                beta: p.get("beta"),
                warm_start: p.get("warm_start") != 0.0,
                substeps: p.get_usize("substeps"),
            };
            Ok(Dynamics::Stepper(Box::new(Impulse::new(scene, opts, solver)?)))
        },
    },
    FormulationEntry {
        name: "pgs",
        summary: "velocity level with contact and Coulomb friction (lambda_n >= 0, |lambda_t| <= mu lambda_n), projected Gauss-Seidel, warm-started (seed 001); a stepper, solver gauss_seidel",
        params: PGS_PARAMS,
        check: |p| {
            if p.get("beta") > 1.0 {
                return Err(format!(
                    "formulation pgs: parameter `beta` = {} is invalid; expected a number in [0, 1]",
                    p.get("beta")
                ));
            }
            Ok(())
        },
        build: |p, scene, solver| {
            let opts = PgsOptions {
                beta: p.get("beta"),
                slop: p.get("slop"),
                iterations: p.get_usize("iterations"),
                tol: p.get("tol"),
            };
            Ok(Dynamics::Stepper(Box::new(Pgs::new(scene, opts, solver)?)))
        },
    },
    FormulationEntry {
        name: "rattle",
        summary: "SHAKE/RATTLE: symplectic, order 2, on C = 0 and J v = 0 to tol (Newton with one factorization per step); a stepper",
        params: RATTLE_PARAMS,
        check: |_| Ok(()),
        build: |p, scene, solver| {
            let opts = RattleOptions { tol: p.get("tol"), max_iter: p.get_usize("max_iter") };
            Ok(Dynamics::Stepper(Box::new(Rattle::new(scene, opts, solver)?)))
        },
    },
    FormulationEntry {
        name: "xpbd",
        summary: "XPBD with substeps: compliant position projection (J W J^T + alpha/h^2) dlambda = -C - alpha/h^2 lambda; a stepper",
        params: XPBD_PARAMS,
        check: |p| {
            if p.get("tol") > 0.0 && p.get_usize("newton") == 0 {
                return Err(format!(
                    "formulation xpbd: parameter `tol` = {} applies only with `newton` = 1; set newton: 1 or remove tol",
                    p.get("tol")
                ));
            }
            Ok(())
        },
        build: |p, scene, solver| {
            let opts = XpbdOptions {
                substeps: p.get_usize("substeps"),
                iterations: p.get_usize("iterations"),
                compliance: p.get("compliance"),
                newton: p.get_usize("newton") == 1,
                tol: p.get("tol"),
            };
            Ok(Dynamics::Stepper(Box::new(Xpbd::new(scene, opts, solver)?)))
        },
    },
    FormulationEntry {
        name: "soft_step",
        summary: "Box2D v3 soft step: substeps with soft velocity constraints (frequency, damping ratio) and a rigid relax pass; a stepper",
        params: SOFT_STEP_PARAMS,
        check: |_| Ok(()),
        build: |p, scene, solver| {
            let opts = SoftStepOptions {
                substeps: p.get_usize("substeps"),
                hertz: p.get("hertz"),
                damping_ratio: p.get("damping_ratio"),
            };
            Ok(Dynamics::Stepper(Box::new(SoftStep::new(scene, opts, solver)?)))
        },
    },
    FormulationEntry {
        name: "lagrangian",
        summary: "reduced coordinates, J^T M J u'' = J^T Q - J^T M Jdot u' (Witkin eq. 13); an ODE; open chains only",
        params: &[],
        check: |_| Ok(()),
        build: |_, scene, solver| Ok(Dynamics::Ode(Box::new(Lagrangian::new(scene, solver)?))),
    },
];

/// Looks up a formulation by name.
pub fn find(name: &str) -> Option<&'static FormulationEntry> {
    FORMULATIONS.iter().find(|e| e.name == name)
}
