//! `tinystore serve`: owns a store and serves it to other processes on
//! `DIR/tinystore.sock` (mode 0600) and, when asked, on TCP with a token.
//!
//! - [`listener`] accepts connections, up to [`crate::wire::MAX_CONNECTIONS`].
//! - [`connection`] speaks the wire on one connection; [`ops`] does each
//!   operation; [`leases`] keeps the leases of one connection and
//!   [`waits`] its acquires waiting in line.
//! - Shutdown is one idea, as in mini-redis: one signal every task watches.

mod auth;
mod connection;
mod leases;
mod listener;
mod ops;
mod shutdown;
mod waits;

use crate::disk::SOCKET;
use crate::embedded::Embedded;
use crate::error::{Error, Result};
use crate::options::DEFAULT_TTL;
use crate::store::StoreOptions;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

pub use auth::read_token_file;
pub use connection::HELLO_TIMEOUT;

/// How long shutdown waits for connections to send their last frames.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(2);

/// TCP serving: the address to listen on and the token clients must give.
#[derive(Clone)]
pub struct TcpOptions {
    /// `HOST:PORT`; port 0 picks a free port (see [`Server::tcp_addr`]).
    pub addr: String,
    /// The shared secret every TCP client sends in `hello`.
    pub token: String,
}

/// How a store is served.
#[derive(Clone, Default)]
pub struct ServeOptions {
    /// Serve on TCP too, with a token; `None` serves the Unix socket only.
    pub tcp: Option<TcpOptions>,
    /// The wait before the first grant after an unclean stop; `None` is the
    /// default TTL (15 s).
    pub grace: Option<Duration>,
    /// The store's options (clock); its `grace` is replaced by the above.
    pub store: StoreOptions,
}

/// A running server. Dropping it without [`Server::shutdown`] stops
/// accepting but does not mark `kv.db` clean.
pub struct Server {
    embedded: Arc<Embedded>,
    socket: PathBuf,
    tcp_addr: Option<SocketAddr>,
    shutdown: watch::Sender<bool>,
    done: mpsc::Receiver<()>,
}

impl Server {
    /// Opens the store `dir`, binds its socket (and TCP if asked) and starts
    /// serving. Fails with `in_use` when another process owns `dir`.
    pub async fn start(dir: impl AsRef<Path>, options: ServeOptions) -> Result<Server> {
        let dir = dir.as_ref();
        let mut store_options = options.store.clone();
        store_options.grace = Some(options.grace.unwrap_or(DEFAULT_TTL));
        let embedded = Arc::new(Embedded::open(dir, &store_options)?);
        let socket = dir.join(SOCKET);
        let unix = listener::bind_unix(&socket)?;
        let tcp = match &options.tcp {
            Some(tcp) => Some(listener::bind_tcp(&tcp.addr).await?),
            None => None,
        };
        let tcp_addr = match &tcp {
            Some(l) => Some(
                l.local_addr()
                    .map_err(|e| Error::io("cannot read the TCP address", e))?,
            ),
            None => None,
        };
        let (shutdown, _) = watch::channel(false);
        let (done_tx, done) = mpsc::channel(1);
        let shared = listener::Shared::new(embedded.clone(), shutdown.clone(), done_tx);
        listener::spawn_unix(unix, shared.clone());
        if let (Some(tcp), Some(opts)) = (tcp, options.tcp) {
            listener::spawn_tcp(tcp, shared, opts.token);
        }
        Ok(Server {
            embedded,
            socket,
            tcp_addr,
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
