//! The `tinkertoy` binary: the command line over the built-in registry.

/// Blocks of 2 MiB or more on transparent huge pages (see [`tinkertoy::large_pages`]).
#[global_allocator]
static ALLOCATOR: tinkertoy::large_pages::LargePages = tinkertoy::large_pages::LargePages;

fn main() -> std::process::ExitCode {
    tinkertoy::cli::main_with(tinkertoy::registry::Registry::builtin())
}
