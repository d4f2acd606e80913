//! Binding the socket and accepting connections, up to the limit.

use super::connection::{self, Transport};
use super::shutdown::Shutdown;
use crate::embedded::Embedded;
use crate::error::{Code, Error, Result};
use crate::wire::{Reply, ServerFrame, MAX_CONNECTIONS};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{mpsc, watch, Semaphore};

/// What every connection of one server shares.
#[derive(Clone)]
pub(super) struct Shared {
    pub embedded: Arc<Embedded>,
    pub shutdown: watch::Sender<bool>,
    /// Never sent on: dropped by each connection when it ends, so that
    /// shutdown can wait for all of them.
    #[allow(dead_code)]
    pub done: mpsc::Sender<()>,
    pub slots: Arc<Semaphore>,
}

impl Shared {
    pub(super) fn new(
        embedded: Arc<Embedded>,
        shutdown: watch::Sender<bool>,
        done: mpsc::Sender<()>,
    ) -> Shared {
        Shared {
            embedded,
            shutdown,
            done,
            slots: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
        }
    }

    fn shutdown(&self) -> Shutdown {
        Shutdown::new(self.shutdown.subscribe())
    }
}

/// Binds `path` with mode 0600: bound under a temporary name, restricted,
/// then renamed into place, so it is never reachable with looser modes. A
/// socket left at `path` by a dead server is replaced: this process owns
/// the store directory, so nobody else serves it.
pub(super) fn bind_unix(path: &Path) -> Result<UnixListener> {
    let temp = path.with_file_name(format!(".tinystore.sock.{}", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let listener = UnixListener::bind(&temp)
        .map_err(|e| Error::io(format!("cannot bind socket {}", temp.display()), e))?;
    std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o600))
        .and_then(|_| std::fs::rename(&temp, path))
        .map_err(|e| Error::io(format!("cannot put socket {} in place", path.display()), e))?;
    Ok(listener)
}

/// Binds a TCP listener on `addr` (`HOST:PORT`).
pub(super) async fn bind_tcp(addr: &str) -> Result<TcpListener> {
    TcpListener::bind(addr).await.map_err(|e| {
        Error::new(
            Code::Io,
            format!("cannot listen on TCP address {addr:?}: {e}"),
        )
    })
}

/// Accepts Unix connections until shutdown.
pub(super) fn spawn_unix(listener: UnixListener, shared: Shared) {
    tokio::spawn(async move {
        let mut shutdown = shared.shutdown();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => admit(stream, Transport::Unix, shared.clone()),
                    Err(_) => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
                },
                _ = shutdown.recv() => return,
            }
        }
    });
}

/// Accepts TCP connections until shutdown; each must authenticate with
/// `token` before anything is served.
pub(super) fn spawn_tcp(listener: TcpListener, shared: Shared, token: String) {
    let token: Arc<str> = token.into();
    tokio::spawn(async move {
        let mut shutdown = shared.shutdown();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let _ = stream.set_nodelay(true);
                        admit(stream, Transport::Tcp(token.clone()), shared.clone());
                    }
                    Err(_) => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
                },
                _ = shutdown.recv() => return,
            }
        }
    });
}

/// Serves a new connection if there is room; otherwise tells it `limit`
/// and closes it.
fn admit<S>(mut stream: S, transport: Transport, shared: Shared)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let Ok(slot) = shared.slots.clone().try_acquire_owned() else {
        tokio::spawn(async move {
            let err = Error::new(
                Code::Limit,
                format!("the server serves at most {MAX_CONNECTIONS} connections at once"),
            );
            let line = ServerFrame::Reply(Reply::err(None, &err)).encode() + "\n";
            let _ = stream.write_all(line.as_bytes()).await;
        });
        return;
    };
    let shutdown = shared.shutdown();
    tokio::spawn(async move {
        connection::serve(stream, transport, shared.embedded.clone(), shutdown).await;
        drop(slot);
        drop(shared);
    });
}
