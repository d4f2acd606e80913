//! `tinystore serve`: owns a store and serves it to other processes on
//! `DIR/tinystore.sock` (mode 0600) and, when asked, on TCP with a token.
//!
//! Inside, one private module each:
//!
//! - `listener` accepts connections as `gate` allows: capped per
//!   socket, with TCP strangers (not yet authenticated) capped apart; a
//!   failed accept is logged and retried later (`accept_errors`).
//! - `handler` is one connection's task: it speaks the wire (the
//!   `greeting` first, everything it tells through `outgoing`) and
//!   hands each request to `ops`, which does the operation on the
//!   `connection` (its shared half); `leases` keeps the leases of one
//!   connection and `waits` its acquires waiting in their keys' queues.
//! - `tls` wraps the TCP listener in TLS (mutual TLS with a client CA).
//! - `metrics` counts (and `process` reads the process's figures);
//!   `scrape` serves them as Prometheus text on a listener of their own,
//!   over a small `http`; beside them, with `--page`, the live `page`
//!   shows the holders, queues and `recent` grants and losses. The engine
//!   tells both through one `tallies`.
//! - `trim` gives the memory closed connections freed back to the system.
//! - Shutdown is one idea, as in mini-redis: one signal every task watches.

mod accept_errors;
mod auth;
mod connection;
mod elect;
mod gate;
mod greeting;
mod handler;
mod http;
mod leases;
mod listener;
mod metrics;
mod observers;
mod ops;
mod outgoing;
mod page;
mod process;
mod recent;
mod refused;
mod scrape;
mod shutdown;
mod tallies;
mod testing;
mod tls;
mod trim;
mod waits;
mod watch;

use crate::disk::SOCKET;
use crate::embedded::Embedded;
use crate::error::{Error, Result};
use crate::options::DEFAULT_TTL;
use crate::store_options::StoreOptions;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

pub use crate::wire::{
    HELLO_TIMEOUT, MAX_CONNECTIONS, MAX_LEASES_PER_CONNECTION, MAX_OBSERVERS_PER_CONNECTION,
    MAX_STRANGERS, MAX_STRANGER_FRAME_BYTES, MAX_WAITERS_PER_CONNECTION, STRANGER_GRACE,
    STRANGER_TIMEOUT,
};
pub use auth::read_token_file;
pub use metrics::MAX_NAMES;
pub use page::{PAGE_HOLDERS, POLL_MS};
pub use recent::RECENT;
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
    /// Serve the live page beside the metrics (`GET /`, its data at
    /// `GET /page.json`, which needs the TCP token): needs `metrics` and
    /// a TCP token.
    pub page: bool,
    /// Speak TLS (HTTPS) on the metrics listener too, with the TCP
    /// listener's certificate, key and client CA: needs `metrics` and TLS
    /// on TCP.
    pub metrics_tls: bool,
}

/// A running server. Dropping it without [`Server::shutdown`] stops
/// accepting but does not mark `kv.db` clean.
pub struct Server {
    embedded: Arc<Embedded>,
    socket: PathBuf,
    tcp_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    shutdown: tokio::sync::watch::Sender<bool>,
    done: mpsc::Receiver<()>,
}

impl Server {
    /// Opens the store `dir`, binds its socket (and TCP if asked) and starts
    /// serving. Fails with `in_use` when another process owns `dir`.
    pub async fn start(dir: impl AsRef<Path>, options: ServeOptions) -> Result<Server> {
        let dir = dir.as_ref();
        let page_token = page_token(&options)?;
        let metrics_tls = metrics_tls(&options)?;
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
        let scrape_tls = tls.as_ref().filter(|_| metrics_tls).map(tls::Tls::acceptor);
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
        let (shutdown, _) = tokio::sync::watch::channel(false);
        let (done_tx, done) = mpsc::channel(1);
        let metrics = Arc::new(metrics::Metrics::new(
            embedded.engine().epoch(),
            embedded.engine().testing(),
        ));
        let recent = Arc::new(recent::Recent::default());
        let page = page_token.map(|token| Arc::new(page::Page::new(token, recent.clone())));
        if page.is_some() {
            let tallies = tallies::Tallies(vec![metrics.clone(), recent]);
            embedded.engine().set_tally(Arc::new(tallies));
        } else {
            embedded.engine().set_tally(metrics.clone());
        }
        let shared =
            listener::Shared::new(embedded.clone(), shutdown.clone(), done_tx, metrics.clone());
        if let Some(scrape) = scrape {
            let engine = embedded.engine().clone();
            scrape::spawn(scrape, scrape_tls, metrics, engine, page, shared.shutdown());
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

/// Whether the metrics listener speaks TLS; fails with `invalid` when it
/// is asked without metrics or without TLS on TCP, whose certificate it
/// takes.
fn metrics_tls(options: &ServeOptions) -> Result<bool> {
    if !options.metrics_tls {
        return Ok(false);
    }
    if options.metrics.is_none() {
        return Err(Error::invalid(
            "TLS on the metrics listener needs a metrics address",
        ));
    }
    match options.tcp.as_ref().and_then(|tcp| tcp.tls.as_ref()) {
        Some(_) => Ok(true),
        None => Err(Error::invalid(
            "TLS on the metrics listener takes the TCP listener's certificate: serve TCP with TLS too",
        )),
    }
}

/// The token the live page's data needs, when the page is served; fails
/// with `invalid` when it is asked without metrics or without a token.
fn page_token(options: &ServeOptions) -> Result<Option<String>> {
    if !options.page {
        return Ok(None);
    }
    if options.metrics.is_none() {
        return Err(Error::invalid(
            "the live page is served beside the metrics: give a metrics address too",
        ));
    }
    match &options.tcp {
        Some(tcp) if !tcp.token.is_empty() => Ok(Some(tcp.token.clone())),
        _ => Err(Error::invalid(
            "the live page's data needs the TCP token: serve TCP with a token file too",
        )),
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
