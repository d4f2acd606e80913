//! `tinystore serve DIR`: owns a store and serves it until SIGTERM or SIGINT.

use crate::logs::LogFormat;
use std::path::PathBuf;
use std::time::Duration;
use tinystore::server::{read_token_file, ServeOptions, Server, TcpOptions, TlsOptions};
use tinystore::store_dir::SOCKET;
use tinystore::Code;
use tinystore::{OffsetClock, StoreOptions};

/// Serves a store to other processes on DIR/tinystore.sock (mode 0600), and
/// on TCP with a token when asked, in TLS with a certificate when given.
/// SIGTERM or SIGINT stop it cleanly: leases are released, waiters told
/// `closed`, kv.db marked clean, the socket removed. A missing or empty DIR is
/// made into a new store (mode 0700); a DIR whose kv.db was lost, is empty, or
/// is not tinystore's is refused (`corrupt`). Logs go to stderr (RUST_LOG
/// filters them, e.g. RUST_LOG=warn).
///
/// Example: tinystore serve ./data --tcp 127.0.0.1:7400 --token-file ./token --grace 5s
/// Example: tinystore serve ./data --tcp 0.0.0.0:7400 --tls-cert server.pem --tls-key server.key
///            --tls-client-ca clients-ca.pem --metrics 127.0.0.1:9400 --log-format json
/// Example: tinystore serve ./data --tcp 127.0.0.1:7400 --token-file ./token
///            --metrics 127.0.0.1:9400 --page
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
#[command(group = clap::ArgGroup::new("tcp_auth").args(["token_file", "tls_client_ca"]).multiple(true))]
pub struct Args {
    /// The store directory; made (mode 0700) if missing.
    dir: PathBuf,
    /// Also listen on TCP at HOST:PORT; clients must give the token (or, with
    /// --tls-client-ca, a client certificate).
    #[arg(long, value_name = "ADDR", requires = "tcp_auth")]
    tcp: Option<String>,
    /// The file holding the TCP token (at least 16 bytes).
    #[arg(long, value_name = "FILE", requires = "tcp")]
    token_file: Option<PathBuf>,
    /// Speak TLS on the --tcp address with this certificate chain (PEM);
    /// clients connect with tls://HOST:PORT.
    #[arg(long, value_name = "FILE", requires_all = ["tcp", "tls_key"])]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Mutual TLS: every client must give a certificate signed by a CA in
    /// FILE (PEM), which stands in place of the token.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// Serve Prometheus metrics at HOST:PORT (GET /metrics), on a listener of
    /// their own.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
    /// Also serve the live page on the --metrics address: http://ADDR/
    /// shows each group, its holders, each key's queue and the latest
    /// grants and losses, updating live. Its data needs the --token-file
    /// token (open http://ADDR/#token=TOKEN).
    #[arg(long, requires_all = ["metrics", "token_file"])]
    page: bool,
    /// Speak HTTPS on the --metrics address (metrics and live page), with
    /// --tls-cert, --tls-key and, when given, --tls-client-ca: the same TLS
    /// rules as the lock port.
    #[arg(long, requires_all = ["metrics", "tls_cert"])]
    metrics_tls: bool,
    /// How log lines are written on stderr.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// How long to wait before the first grant after an unclean stop
    /// (default: the grace the last server kept, else the default TTL, 15s),
    /// e.g. 500ms. Recorded in kv.db: after an unclean stop of this server,
    /// every next owner (serve, open, hold) waits it.
    #[arg(long, value_name = "D", value_parser = crate::duration::parse)]
    grace: Option<Duration>,
    /// Append every grant, renewal and end of a lease to FILE, one JSON
    /// line each (for checking the store's history from outside: a grant
    /// names its kind, mode, weight, the key's limit and its max_hold
    /// deadline).
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Serve a test store: the test kit (tinystore's testing module in each
    /// language) may move its time and expire its leases, as if their
    /// holders paused past their TTL. `status` and the metrics
    /// (tinystore_testing 1) say so. Never for a store doing real work.
    #[arg(long)]
    testing: bool,
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

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    crate::logs::init(args.log_format);
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsOptions {
            cert: cert.clone(),
            key: key.clone(),
            client_ca: args.tls_client_ca.clone(),
        }),
        _ => None,
    };
    let tcp = match &args.tcp {
        Some(addr) => Some(TcpOptions {
            addr: addr.clone(),
            // With a client CA the certificate stands in place of the token.
            token: match &args.token_file {
                Some(file) => read_token_file(file)?,
                None => String::new(),
            },
            tls,
        }),
        None => None,
    };
    let json = args.log_format == LogFormat::Json;
    let mut store = StoreOptions::default().clock(OffsetClock(args.clock_offset_ms));
    store.audit = args.audit.clone();
    store.testing = args.testing;
    let options = ServeOptions {
        tcp,
        grace: args.grace,
        store,
        metrics: args.metrics.clone(),
        page: args.page,
        metrics_tls: args.metrics_tls,
    };
    crate::target::runtime()?.block_on(async {
        let mut stops = crate::stop_signals::StopSignals::new()?;
        let server = match Server::start(&args.dir, options).await {
            Ok(server) => server,
            Err(err) if err.code() == Code::InUse && tinystore::store_dir::answers(&args.dir) => {
                let pid = tinystore::store_dir::owner_pid(&args.dir)
                    .map_or("an unknown process".to_string(), |pid| {
                        format!("process {pid}")
                    });
                return Err(format!(
                    "in_use: store {} is already served by {pid} on unix:{}",
                    args.dir.display(),
                    args.dir.join(SOCKET).display()
                )
                .into());
            }
            Err(err) => return Err(err.into()),
        };
        let mut serving = format!(
            "serving {} on unix:{}",
            args.dir.display(),
            server.socket_path().display()
        );
        if let Some(addr) = server.tcp_addr() {
            let scheme = if args.tls_cert.is_some() {
                "tls"
            } else {
                "tcp"
            };
            serving += &format!(" and {scheme}://{addr}");
        }
        serving += &format!(" (epoch {})", server.epoch());
        if args.testing {
            serving += ", a test store (--testing)";
        }
        if let Some(addr) = server.metrics_addr() {
            let scheme = if args.metrics_tls { "https" } else { "http" };
            serving += &format!("; metrics on {scheme}://{addr}/metrics");
            if args.page {
                serving += &format!(", the live page on {scheme}://{addr}/");
            }
        }
        announce(json, &serving);
        let name = stops.next().await.name();
        announce(json, &format!("{name}: shutting down"));
        server.shutdown().await?;
        announce(json, "stopped cleanly");
        Ok(0)
    })
}

/// The command's own lines: plain on stderr, or with `--log-format json`
/// as log events, so that stderr holds only JSON.
fn announce(json: bool, line: &str) {
    if json {
        tracing::info!(target: "tinystore::command", "{line}");
    } else {
        say!("tinystore serve: {line}");
    }
}
