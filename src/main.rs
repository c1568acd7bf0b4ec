//! The `tinkertoy` command line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use tinkertoy::constraint::registry::CONSTRAINTS;
use tinkertoy::formulation::registry::FORMULATIONS;
use tinkertoy::integrator::registry::{INTEGRATORS, IntegratorKind};
use tinkertoy::linsolve::registry::SOLVERS;
use tinkertoy::params;
use tinkertoy::scene::registry::SCENES;

/// A research testbed for constrained dynamics.
#[derive(Parser)]
#[command(name = "tinkertoy", version, about, after_help = "Examples:\n  tinkertoy list")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print every registered constraint, scene, formulation, linear solver and integrator with its
    /// parameters, units and defaults.
    List,
}

fn list() -> String {
    let mut out = String::from("Constraints\n");
    for c in CONSTRAINTS {
        out.push_str(&format!("  {:<16} {}\n    params: {}\n", c.name, c.summary, c.params));
    }
    out.push_str("\nScenes\n");
    for s in SCENES {
        out.push_str(&format!("  {:<16} {}\n", s.name, s.summary));
        out.push_str(&params::describe(s.params));
    }
    out.push_str("\nFormulations\n");
    for f in FORMULATIONS {
        out.push_str(&format!("  {:<16} {}\n", f.name, f.summary));
        out.push_str(&params::describe(f.params));
    }
    out.push_str("\nLinear solvers\n");
    for s in SOLVERS {
        out.push_str(&format!("  {:<16} {}\n", s.name, s.summary));
        out.push_str(&params::describe(s.params));
    }
    out.push_str("\nIntegrators\n");
    for i in INTEGRATORS {
        let kind = match i.kind {
            IntegratorKind::Fixed { order } => format!("fixed step h, order {order}"),
            IntegratorKind::Adaptive { order } => format!("adaptive (tolerance), order {order}"),
            IntegratorKind::Stepper => "fixed step h, stepping formulations only".to_string(),
        };
        out.push_str(&format!("  {:<16} {} [{kind}]\n", i.name, i.summary));
    }
    out
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::List => {
            print!("{}", list());
            ExitCode::SUCCESS
        }
    }
}
