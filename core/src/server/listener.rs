//! Binding the sockets and accepting connections, as the gate allows.

use super::accept_errors::AcceptErrors;
use super::connection::Transport;
use super::gate::{Gate, Pass};
use super::handler::Handler;
use super::metrics::Metrics;
use super::shutdown::Shutdown;
use super::trim::Trim;
use crate::embedded::Embedded;
use crate::error::{Code, Error, Result};
use crate::os::local_socket::LocalListener;
use crate::os::open_files;
use crate::wire::{Reply, ServerFrame, MAX_CONNECTIONS, MAX_STRANGERS};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{mpsc, watch};
use tracing::Instrument;

/// What every connection of one server shares.
#[derive(Clone)]
pub(super) struct Shared {
    pub embedded: Arc<Embedded>,
    pub shutdown: watch::Sender<bool>,
    /// Never sent on: dropped by each connection when it ends, so that
    /// shutdown can wait for all of them.
    #[allow(dead_code)]
    pub done: mpsc::Sender<()>,
    pub gate: Arc<Gate>,
    pub metrics: Arc<Metrics>,
    /// What closed connections freed, to give back to the system.
    pub trim: Arc<Trim>,
    /// The number the next connection gets in the logs.
    connections: Arc<AtomicU64>,
}

impl Shared {
    pub(super) fn new(
        embedded: Arc<Embedded>,
        shutdown: watch::Sender<bool>,
        done: mpsc::Sender<()>,
        metrics: Arc<Metrics>,
    ) -> Shared {
        Shared {
            embedded,
            shutdown,
            done,
            gate: Arc::default(),
            metrics,
            trim: Arc::default(),
            connections: Arc::default(),
        }
    }

    pub(super) fn shutdown(&self) -> Shutdown {
        Shutdown::new(self.shutdown.subscribe())
    }

    fn next_connection(&self) -> u64 {
        self.connections.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// Raises this process's soft limit on open files, if it is lower, to what
/// a full server needs (both sockets' caps and the strangers', with room to
/// spare), or to the hard limit if that is lower: a server that runs out of
/// descriptors can accept nobody, whichever cap has room.
pub(super) fn raise_fd_limit() {
    open_files::raise_to((2 * MAX_CONNECTIONS + MAX_STRANGERS + 256) as u64);
}

/// How many connections the kernel holds for a TCP listener before they
/// are accepted (the kernel lowers it to `net.core.somaxconn`). While the
/// strangers' cap is full, new connections wait there: a fleet of clients
/// reconnecting at once waits in it rather than being refused, and a
/// connection beyond it has its SYN dropped and retried by its kernel a
/// second later.
pub(super) const LISTEN_BACKLOG: u32 = 4096;

/// Binds a TCP listener on `addr` (`HOST:PORT`), with [`LISTEN_BACKLOG`].
pub(super) async fn bind_tcp(addr: &str) -> Result<TcpListener> {
    let cannot = |e: std::io::Error| {
        Error::new(
            Code::Io,
            format!("cannot listen on TCP address {addr:?}: {e}"),
        )
    };
    let mut last = None;
    for at in tokio::net::lookup_host(addr).await.map_err(cannot)? {
        match listen_on(at) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    let none = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to bind");
    Err(cannot(last.unwrap_or_else(none)))
}

fn listen_on(at: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = match at {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(at)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Accepts Unix connections until shutdown; a failed accept is logged and
/// retried later ([`AcceptErrors`]).
pub(super) fn spawn_unix(listener: LocalListener, shared: Shared) {
    tokio::spawn(async move {
        let mut shutdown = shared.shutdown();
        let mut errors = AcceptErrors::new("unix");
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = shutdown.recv() => return,
            };
            match accepted {
                Ok((stream, _)) => {
                    errors.accepted();
                    admit_unix(stream, shared.clone());
                }
                Err(err) => tokio::select! {
                    _ = errors.failed(&err) => {}
                    _ = shutdown.recv() => return,
                },
            }
        }
    });
}

/// Accepts TCP connections until shutdown; each must authenticate with
/// `token` before anything is served.
pub(super) fn spawn_tcp(listener: TcpListener, shared: Shared, token: String) {
    let token: Arc<str> = token.into();
    let to = shared.clone();
    accept_tcp(listener, shared, move |stream, peer, pass| {
        let transport = Transport::Tcp(token.clone());
        admit(stream, transport, pass, Some(peer), to.clone());
    });
}

/// Accepts TCP connections until shutdown, each with a stranger's pass,
/// and gives them to `serve`; a failed accept is logged and retried later
/// ([`AcceptErrors`]). While the gate has no place for a stranger,
/// it accepts nothing more: the next connections wait in the backlog.
pub(super) fn accept_tcp(
    listener: TcpListener,
    shared: Shared,
    serve: impl Fn(TcpStream, SocketAddr, Pass) + Send + 'static,
) {
    tokio::spawn(async move {
        let mut shutdown = shared.shutdown();
        let mut errors = AcceptErrors::new("tcp");
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = shutdown.recv() => return,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    tokio::select! {
                        _ = errors.failed(&err) => continue,
                        _ = shutdown.recv() => return,
                    }
                }
            };
            errors.accepted();
            let pass = tokio::select! {
                pass = shared.gate.tcp() => pass,
                _ = shutdown.recv() => return,
            };
            let _ = stream.set_nodelay(true);
            serve(stream, peer, pass);
        }
    });
}

/// Serves a new Unix connection if there is room; otherwise tells it
/// `limit` and closes it.
fn admit_unix<S>(stream: S, shared: Shared)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    match shared.gate.unix() {
        Ok(pass) => admit(stream, Transport::Unix, pass, None, shared),
        Err(err) => refuse(stream, err),
    }
}

/// Serves a connection that has its pass, in a span that names it (its
/// number, transport and peer), with a log line when it opens and closes.
pub(super) fn admit<S>(
    stream: S,
    transport: Transport,
    pass: Pass,
    peer: Option<SocketAddr>,
    shared: Shared,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let shutdown = shared.shutdown();
    let number = shared.next_connection();
    let label = transport.label();
    let span = match peer {
        Some(peer) => tracing::info_span!("connection", n = number, transport = label, %peer),
        None => tracing::info_span!("connection", n = number, transport = label),
    };
    let task = async move {
        tracing::info!("connection opened");
        let _open = shared.metrics.connection(label);
        let metrics = shared.metrics.clone();
        let embedded = shared.embedded.clone();
        let handler = Handler::new(stream, transport, pass, embedded, metrics, shutdown);
        let given_up = handler.serve().await;
        tracing::info!("connection closed");
        shared.trim.closed(given_up);
        drop(shared);
    };
    tokio::spawn(task.instrument(span));
}

/// Tells a connection why it is not served, and closes it: after reading
/// what it sent (for a second at most), since closing with unread bytes
/// resets the connection, which can lose the reply.
pub(super) fn refuse<S>(mut stream: S, err: Error)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let line = ServerFrame::Reply(Reply::err(None, &err)).encode() + "\n";
        let _ = stream.write_all(line.as_bytes()).await;
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 4096];
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
    });
}
