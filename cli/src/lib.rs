//! `tinystore`: the command line, as a library so that every package can
//! start the same command (the `tinystore` binary, the Python console script,
//! the npm `bin`, the Go `cmd/tinystore`). One module per command.

#[macro_use]
mod say;

mod backup;
mod cmd_process;
mod demo;
mod duration;
mod elect;
mod escape;
mod held;
mod hold;
mod human;
mod leader;
mod logs;
mod restore;
mod serve;
mod status;
mod stop_signals;
mod supervise;
mod table;
mod target;
mod watch;

use clap::{Parser, Subcommand};

/// A lock service whose every exclusive lease carries a fence.
#[derive(Parser)]
#[command(name = "tinystore", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands. Each has one line here, which `tinystore --help` lists
/// (and `tinystore CMD -h` shows); the long text, with the exit statuses and
/// an example, is the doc comment of the command's `Args`, which
/// `tinystore CMD --help` shows.
#[derive(Subcommand)]
enum Command {
    /// Plays the README's scene with real fences on a store in a temporary
    /// directory: a paused holder's late write is refused.
    ///
    /// Example: tinystore demo
    #[command(about = "Play the README's scene: a paused holder's late write refused")]
    Demo(demo::Args),
    #[command(about = "Serve a store to other processes (Unix socket, TCP, TLS)")]
    Serve(serve::Args),
    #[command(about = "Run a command while holding a lock; stop it if the lease is lost")]
    Hold(hold::Args),
    #[command(about = "Run a command while leading an election")]
    Elect(elect::Args),
    #[command(about = "Print who leads an election, or watch each change")]
    Leader(leader::Args),
    #[command(about = "Show the epoch, the fences given, held keys and waiters")]
    Status(status::Args),
    #[command(about = "Print every grant, end and queue change in a group as it happens")]
    Watch(watch::Args),
    #[command(about = "Write a consistent copy of a store's kv.db")]
    Backup(backup::Args),
    #[command(about = "Put a backup in place as a store's kv.db")]
    Restore(restore::Args),
}

/// Runs the command line on `args` (the first is the program's name, as in
/// `std::env::args_os`) and gives the process's exit status. Help, version
/// and usage errors are printed as clap prints them.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return err.exit_code();
        }
    };
    exit_status(dispatch(cli))
}

fn dispatch(cli: Cli) -> Result<u8, Box<dyn std::error::Error>> {
    match cli.command {
        Command::Demo(args) => demo::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Hold(args) => hold::run(args),
        Command::Elect(args) => elect::run(args),
        Command::Leader(args) => leader::run(args),
        Command::Status(args) => status::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Backup(args) => backup::run(args),
        Command::Restore(args) => restore::run(args),
    }
}

fn exit_status(result: Result<u8, Box<dyn std::error::Error>>) -> i32 {
    match result {
        Ok(code) => i32::from(code),
        Err(err) => {
            say!("tinystore: {err}");
            1
        }
    }
}
