//! The server's logs, through `tracing`: one line per event on stderr, as
//! text or JSON, filtered as `RUST_LOG` says (default `info`). What is
//! logged: each connection opened and closed, each lease lost, each refused
//! authentication (never a token), and the server's start and stop (these
//! two always, whatever `RUST_LOG` says).

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line an event: time, level, span, target, message, fields
    /// (`... INFO connection{n=1 transport="tcp" peer=..}: tinystore::server::listener: connection opened`)
    Text,
    /// One JSON object a line: `timestamp`, `level`, `target`, `fields`
    /// (with `message`), `span` and `spans`.
    Json,
}

/// Sends this process's `tracing` events to stderr in `format`; does
/// nothing when a subscriber is already set (a program that runs the CLI
/// in-process keeps its own).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // The start and stop lines are always written, whatever RUST_LOG says.
    let filter = match "tinystore::command=info".parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Its default reports a failed write with `eprintln!`, which panics
        // when stderr is closed: the panic ends the connection's task.
        .log_internal_errors(false)
        .with_ansi(false);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(false).try_init(),
    };
}
