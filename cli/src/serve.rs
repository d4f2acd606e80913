//! `tinystore serve DIR`: owns a store and serves it until SIGTERM or SIGINT.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tinystore::disk::SOCKET;
use tinystore::server::{read_token_file, ServeOptions, Server, TcpOptions};
use tinystore::Code;
use tinystore::{OffsetClock, StoreOptions};
use tokio::signal::unix::{signal, SignalKind};

/// Serves a store to other processes on DIR/tinystore.sock (mode 0600), and
/// on TCP with a token when asked. SIGTERM or SIGINT stop it cleanly: leases
/// are released, waiters told `closed`, kv.db marked clean, the socket removed.
///
/// Example: tinystore serve ./data --tcp 127.0.0.1:7400 --token-file ./token --grace 5s
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The store directory; made if missing.
    dir: PathBuf,
    /// Also listen on TCP at HOST:PORT; clients must give the token.
    #[arg(long, value_name = "ADDR", requires = "token_file")]
    tcp: Option<String>,
    /// The file holding the TCP token (at least 16 bytes).
    #[arg(long, value_name = "FILE", requires = "tcp")]
    token_file: Option<PathBuf>,
    /// How long to wait before the first grant after an unclean stop
    /// (default: the default TTL, 15s), e.g. 500ms.
    #[arg(long, value_name = "D", value_parser = crate::duration::parse)]
    grace: Option<Duration>,
    /// Append every grant and end of a lease to FILE, one JSON line each
    /// (for checking the store's history from outside).
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// For tests: read the epoch from a clock this many ms off the system's
    /// (negative steps it backwards).
    #[arg(
        long,
        value_name = "MS",
        hide = true,
        allow_hyphen_values = true,
        default_value_t = 0
    )]
    clock_offset_ms: i64,
}

/// Whether another server answers on the store's socket.
fn already_served(dir: &std::path::Path) -> bool {
    std::os::unix::net::UnixStream::connect(dir.join(SOCKET)).is_ok()
}

pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let tcp = match (&args.tcp, &args.token_file) {
        (Some(addr), Some(file)) => Some(TcpOptions {
            addr: addr.clone(),
            token: read_token_file(file)?,
        }),
        _ => None,
    };
    let mut store = StoreOptions::default().clock(OffsetClock(args.clock_offset_ms));
    store.audit = args.audit.clone();
    let options = ServeOptions {
        tcp,
        grace: args.grace,
        store,
    };
    crate::target::runtime()?.block_on(async {
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let server = match Server::start(&args.dir, options).await {
            Ok(server) => server,
            Err(err) if err.code() == Code::InUse && already_served(&args.dir) => {
                return Err(format!(
                    "in_use: store {} is already served on unix:{}",
                    args.dir.display(),
                    args.dir.join(SOCKET).display()
                )
                .into());
            }
            Err(err) => return Err(err.into()),
        };
        eprint!(
            "tinystore serve: serving {} on unix:{}",
            args.dir.display(),
            server.socket_path().display()
        );
        if let Some(addr) = server.tcp_addr() {
            eprint!(" and tcp://{addr}");
        }
        eprintln!(" (epoch {})", server.epoch());
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        eprintln!("tinystore serve: {name}: shutting down");
        server.shutdown().await?;
        eprintln!("tinystore serve: stopped cleanly");
        Ok(ExitCode::SUCCESS)
    })
}
