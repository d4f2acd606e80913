//! `tinystore`: the command line. One module per command.

mod backup;
mod demo;
mod duration;
mod hold;
mod restore;
mod serve;
mod status;
mod target;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// A lock service whose every exclusive lease carries a fence.
#[derive(Parser)]
#[command(name = "tinystore", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Plays the seed's scene with real fences on a store in a temporary
    /// directory: a paused holder's late write is refused.
    ///
    /// Example: tinystore demo
    Demo(demo::Args),
    Serve(serve::Args),
    Hold(hold::Args),
    Status(status::Args),
    Backup(backup::Args),
    Restore(restore::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => demo::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Hold(args) => hold::run(args),
        Command::Status(args) => status::run(args),
        Command::Backup(args) => backup::run(args),
        Command::Restore(args) => restore::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tinystore: {err}");
            ExitCode::from(1)
        }
    }
}
