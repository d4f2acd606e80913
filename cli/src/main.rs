//! `tinystore`: the command line. One module per command.

mod demo;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => demo::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tinystore: {err}");
            ExitCode::from(1)
        }
    }
}
