//! The `tinkertoy` command line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use tinkertoy::constraint::registry::CONSTRAINTS;
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
    /// Print every registered constraint and scene with its parameters, units and defaults.
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
