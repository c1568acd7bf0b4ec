//! The `tinkertoy` binary: the command line over the built-in registry.

fn main() -> std::process::ExitCode {
    tinkertoy::cli::main_with(tinkertoy::registry::Registry::builtin())
}
