//! The store's local socket, `DIR/tinystore.sock`, which a served store
//! always listens on and `open(DIR)` connects to: a Unix socket, mode
//! 0600, on Unix.
//!
//! Windows is not built yet: serving a store fails there with `invalid`,
//! naming the system, before the store is opened; connecting is
//! `unavailable` with the same words (no server can answer on a local
//! socket there, so a store directory reads as one nobody serves, and
//! `status` and `backup` work on it), and a server elsewhere is reached
//! with `tcp://`. The choice made for it is loopback TCP with the token (a
//! port on 127.0.0.1 and the token in files of the store directory that
//! only its user may read), rather than a named pipe: the server's TCP
//! listener, its token check and the client's TCP connection are already
//! built and tested on every system, where a named pipe would be a third
//! kind of listener and of connection to build and keep (tokio has no
//! Unix sockets on Windows).

use crate::error::{Error, Result};
use std::path::Path;

#[cfg(unix)]
pub(crate) use tokio::net::{UnixListener as LocalListener, UnixStream as LocalStream};

/// Whether a store can be served on this system: always on Unix.
#[cfg(unix)]
pub(crate) fn servable(_dir: &Path) -> Result<()> {
    Ok(())
}

/// Binds `path` with mode 0600: bound under a temporary name, restricted,
/// then renamed into place, so it is never reachable with looser modes. A
/// socket left at `path` by a dead server is replaced: the caller owns
/// the store directory, so nobody else serves it.
#[cfg(unix)]
pub(crate) fn bind(path: &Path) -> Result<LocalListener> {
    let temp = path.with_file_name(format!(".tinystore.sock.{}", std::process::id()));
    let _ = std::fs::remove_file(&temp);
    let listener = LocalListener::bind(&temp)
        .map_err(|e| Error::io(format!("cannot bind socket {}", temp.display()), e))?;
    super::file_modes::restrict_file(&temp)
        .and_then(|_| std::fs::rename(&temp, path))
        .map_err(|e| Error::io(format!("cannot put socket {} in place", path.display()), e))?;
    Ok(listener)
}

/// Connects to the socket at `path`; `unreachable` says why it could not.
#[cfg(unix)]
pub(crate) async fn connect(
    path: &Path,
    unreachable: impl FnOnce(std::io::Error) -> Error,
) -> Result<LocalStream> {
    LocalStream::connect(path).await.map_err(unreachable)
}

/// Whether a server answers on the socket at `path` (a blocking connect).
#[cfg(unix)]
pub(crate) fn answers(path: &Path) -> bool {
    std::os::unix::net::UnixStream::connect(path).is_ok()
}

#[cfg(not(unix))]
pub(crate) use elsewhere::{LocalListener, LocalStream};

/// Serving fails with `invalid` here, naming the system: no local socket
/// is built yet.
#[cfg(not(unix))]
pub(crate) fn servable(dir: &Path) -> Result<()> {
    Err(super::unsupported(
        "unix sockets",
        &format!(
            "{} cannot be served here yet; serve it on Linux or macOS \
             and connect to it with tcp://",
            dir.display()
        ),
    ))
}

/// Fails as [`servable`] does.
#[cfg(not(unix))]
pub(crate) fn bind(path: &Path) -> Result<LocalListener> {
    Err(servable(path.parent().unwrap_or(path)).expect_err("servable fails here"))
}

/// Connecting fails with `unavailable` here, naming the system: no server
/// can answer on a local socket.
#[cfg(not(unix))]
pub(crate) async fn connect(
    _path: &Path,
    unreachable: impl FnOnce(std::io::Error) -> Error,
) -> Result<LocalStream> {
    Err(unreachable(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!(
            "unix sockets are not supported on {}; connect with tcp://",
            std::env::consts::OS
        ),
    )))
}

/// No server answers on a local socket here.
#[cfg(not(unix))]
pub(crate) fn answers(_path: &Path) -> bool {
    false
}

/// A listener and a stream that cannot be made: what the server and the
/// client are written against where there is no local socket.
#[cfg(not(unix))]
mod elsewhere {
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

    /// Never made: [`super::bind`] fails.
    #[derive(Debug)]
    pub(crate) enum LocalListener {}

    impl LocalListener {
        /// Never called: no listener exists.
        pub(crate) async fn accept(&self) -> io::Result<(LocalStream, ())> {
            match *self {}
        }
    }

    /// Never made: [`super::connect`] fails and nothing is accepted.
    #[derive(Debug)]
    pub(crate) enum LocalStream {}

    impl AsyncRead for LocalStream {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            match *self {}
        }
    }

    impl AsyncWrite for LocalStream {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<io::Result<usize>> {
            match *self {}
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            match *self {}
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            match *self {}
        }
    }
}
