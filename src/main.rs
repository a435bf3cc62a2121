//! The `outboxctl` binary: everything happens in [`outboxctl::cli::run`].

fn main() -> std::process::ExitCode {
    outboxctl::cli::run(std::env::args_os())
}
