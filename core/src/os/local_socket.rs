//! The store's local socket, `DIR/tinystore.sock`, which a served store
//! always listens on and `open(DIR)` connects to: a Unix socket, mode
//! 0600, on Unix.
//!
//! Windows is not built yet: binding or connecting fails there with
//! `invalid`, naming the system, and such a store is reached with
//! `tcp://`. The choice made for it is loopback TCP with the token (a
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

/// Binding fails with `invalid` here: no local socket is built yet.
#[cfg(not(unix))]
pub(crate) fn bind(path: &Path) -> Result<LocalListener> {
    Err(super::unsupported(
        "unix sockets",
        &format!(
            "{} cannot be served on this system yet; serve it on Linux or macOS \
             and connect to it with tcp://",
            path.parent().unwrap_or(path).display()
        ),
    ))
}

/// Connecting fails with `invalid` here: no local socket is built yet.
#[cfg(not(unix))]
pub(crate) async fn connect(
    path: &Path,
    _unreachable: impl FnOnce(std::io::Error) -> Error,
) -> Result<LocalStream> {
    Err(super::unsupported(
        "unix sockets",
        &format!("cannot connect to {}; connect with tcp://", path.display()),
    ))
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
