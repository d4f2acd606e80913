//! `tinystore serve`: owns a store and serves it to other processes on
//! `DIR/tinystore.sock` (mode 0600) and, when asked, on TCP with a token.
//!
//! - [`listener`] accepts connections as [`gate`] allows: capped per
//!   socket, with TCP strangers (not yet authenticated) capped apart; a
//!   failed accept is logged and retried later ([`accept_errors`]).
//! - [`handler`] is one connection's task: it speaks the wire (the
//!   [`greeting`] first, everything it tells through [`outgoing`]) and
//!   hands each request to [`ops`], which does the operation on the
//!   [`connection`] (its shared half); [`leases`] keeps the leases of one
//!   connection and [`waits`] its acquires waiting in their keys' queues.
//! - [`tls`] wraps the TCP listener in TLS (mutual TLS with a client CA).
//! - [`metrics`] counts (and [`process`] reads the process's figures);
//!   [`scrape`] serves them as Prometheus text on a listener of their own.
//! - [`trim`] gives the memory closed connections freed back to the system.
//! - Shutdown is one idea, as in mini-redis: one signal every task watches.

mod accept_errors;
mod auth;
mod connection;
mod elect;
mod gate;
mod greeting;
mod handler;
mod leases;
mod listener;
mod metrics;
mod observers;
mod ops;
mod outgoing;
mod process;
mod scrape;
mod shutdown;
mod testing;
mod tls;
mod trim;
mod refused;
mod waits;

use crate::disk::SOCKET;
use crate::embedded::Embedded;
use crate::error::{Error, Result};
use crate::options::DEFAULT_TTL;
use crate::store_options::StoreOptions;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

pub use crate::wire::{
    HELLO_TIMEOUT, MAX_CONNECTIONS, MAX_LEASES_PER_CONNECTION, MAX_OBSERVERS_PER_CONNECTION,
    MAX_STRANGERS, MAX_STRANGER_FRAME_BYTES, MAX_WAITERS_PER_CONNECTION, STRANGER_GRACE,
    STRANGER_TIMEOUT,
};
pub use auth::read_token_file;
pub use metrics::MAX_NAMES;
pub use tls::TlsOptions;

/// How long shutdown waits for connections to send their last frames.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(2);

/// TCP serving: the address to listen on and the token clients must give.
#[derive(Clone)]
pub struct TcpOptions {
    /// `HOST:PORT`; port 0 picks a free port (see [`Server::tcp_addr`]).
    pub addr: String,
    /// The shared secret every TCP client sends in `hello`; with TLS and a
    /// client CA, a client's certificate stands in its place (and this is
    /// not asked).
    pub token: String,
    /// Speak TLS on this listener (and only TLS).
    pub tls: Option<TlsOptions>,
}

/// How a store is served.
#[derive(Clone, Default)]
pub struct ServeOptions {
    /// Serve on TCP too, with a token; `None` serves the Unix socket only.
    pub tcp: Option<TcpOptions>,
    /// The wait before the first grant after an unclean stop; `None` is the
    /// one the last server recorded, else the default TTL (15 s). It is
    /// recorded in `kv.db` as the grace every next owner waits after an
    /// unclean stop of this server.
    pub grace: Option<Duration>,
    /// The store's options (clock); its `grace` is replaced by the above.
    pub store: StoreOptions,
    /// Serve Prometheus metrics at `HOST:PORT` (`GET /metrics`), on a
    /// listener of their own.
    pub metrics: Option<String>,
}

/// A running server. Dropping it without [`Server::shutdown`] stops
/// accepting but does not mark `kv.db` clean.
pub struct Server {
    embedded: Arc<Embedded>,
    socket: PathBuf,
    tcp_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    shutdown: watch::Sender<bool>,
    done: mpsc::Receiver<()>,
}

impl Server {
    /// Opens the store `dir`, binds its socket (and TCP if asked) and starts
    /// serving. Fails with `in_use` when another process owns `dir`.
    pub async fn start(dir: impl AsRef<Path>, options: ServeOptions) -> Result<Server> {
        let dir = dir.as_ref();
        crate::os::local_socket::servable(dir)?;
        let mut store_options = options.store.clone();
        store_options.grace = options.grace;
        let embedded = Arc::new(Embedded::open(dir, &store_options)?);
        embedded.mark_served(options.grace.unwrap_or(DEFAULT_TTL))?;
        let socket = dir.join(SOCKET);
        listener::raise_fd_limit();
        let unix = crate::os::local_socket::bind(&socket)?;
        let tls = match options.tcp.as_ref().and_then(|t| t.tls.as_ref()) {
            Some(tls) => Some(tls::Tls::new(tls)?),
            None => None,
        };
        let tcp = match &options.tcp {
            Some(tcp) => Some(listener::bind_tcp(&tcp.addr).await?),
            None => None,
        };
        let tcp_addr = tcp.as_ref().map(local_addr).transpose()?;
        let scrape = match &options.metrics {
            Some(addr) => Some(scrape::bind(addr).await?),
            None => None,
        };
        let metrics_addr = scrape.as_ref().map(local_addr).transpose()?;
        let (shutdown, _) = watch::channel(false);
        let (done_tx, done) = mpsc::channel(1);
        let metrics = Arc::new(metrics::Metrics::new(
            embedded.engine().epoch(),
            embedded.engine().testing(),
        ));
        embedded.engine().set_tally(metrics.clone());
        let shared =
            listener::Shared::new(embedded.clone(), shutdown.clone(), done_tx, metrics.clone());
        if let Some(scrape) = scrape {
            let engine = embedded.engine().clone();
            scrape::spawn(scrape, metrics, engine, shared.shutdown());
        }
        trim::spawn(shared.trim.clone(), shared.shutdown());
        listener::spawn_unix(unix, shared.clone());
        match (tcp, options.tcp, tls) {
            (Some(tcp), Some(opts), Some(tls)) => tls::spawn_tls(tcp, shared, opts.token, tls),
            (Some(tcp), Some(opts), None) => listener::spawn_tcp(tcp, shared, opts.token),
            _ => {}
        }
        Ok(Server {
            embedded,
            socket,
            tcp_addr,
            metrics_addr,
            shutdown,
            done,
        })
    }

    /// The path of the Unix socket.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// The TCP address bound, when serving TCP.
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        self.tcp_addr
    }

    /// The metrics address bound, when serving metrics.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// The store's epoch.
    pub fn epoch(&self) -> u64 {
        self.embedded.engine().epoch()
    }

    /// Stops cleanly: removes the socket, releases every lease (holders are
    /// told), fails every waiter with `closed`, lets connections send those
    /// last frames, and marks `kv.db` clean.
    pub async fn shutdown(mut self) -> Result<()> {
        let _ = std::fs::remove_file(&self.socket);
        let _ = self.shutdown.send(true);
        let reason = Error::closed(format!(
            "the server of {} shut down",
            self.socket.parent().unwrap_or(Path::new(".")).display()
        ));
        self.embedded.engine().close(reason);
        let _ = tokio::time::timeout(FLUSH_TIMEOUT, self.done.recv()).await;
        self.embedded.close_now()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

fn local_addr(listener: &tokio::net::TcpListener) -> Result<SocketAddr> {
    listener
        .local_addr()
        .map_err(|e| Error::io("cannot read a listener's address", e))
}

/// Serves `dir` until `signal` resolves, then shuts down cleanly.
pub async fn serve(
    dir: impl AsRef<Path>,
    options: ServeOptions,
    signal: impl std::future::Future<Output = ()>,
) -> Result<()> {
    let server = Server::start(dir, options).await?;
    signal.await;
    server.shutdown().await
}
