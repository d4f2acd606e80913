//! The one error type of tinystore, with the codes shared by the wire and
//! every language binding.

use std::fmt;

/// A `Result` whose error is a tinystore [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error codes of docs/locks.md: the same set on the wire and in every
/// language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// A wait ran out before the key was free.
    Timeout,
    /// The lease ran out, was released, or its store or connection went away.
    LeaseLost,
    /// The store directory is owned by another process that does not serve it.
    InUse,
    /// The store or connection was closed.
    Closed,
    /// A bad name, key, TTL, fence text or argument.
    Invalid,
    /// A documented limit was passed.
    Limit,
    /// A TCP client did not authenticate, or gave a wrong token; or a TLS
    /// handshake was refused (a certificate, either side's).
    Unauthorized,
    /// `kv.db` could not be read as a tinystore database.
    Corrupt,
    /// An operating-system I/O error.
    Io,
    /// The server could not be reached.
    Unavailable,
    /// A bug or an unexpected state; never the caller's fault.
    Internal,
    /// A guard refused a write: its fence is below the largest one recorded
    /// for that resource ([`Error::stale`] carries the three).
    Stale,
}

impl Code {
    /// Every code, in the order docs/locks.md lists them.
    pub const ALL: [Code; 12] = [
        Code::Timeout,
        Code::LeaseLost,
        Code::InUse,
        Code::Closed,
        Code::Invalid,
        Code::Limit,
        Code::Unauthorized,
        Code::Corrupt,
        Code::Io,
        Code::Unavailable,
        Code::Internal,
        Code::Stale,
    ];

    /// The code's spelling on the wire, e.g. `"lease_lost"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Timeout => "timeout",
            Code::LeaseLost => "lease_lost",
            Code::InUse => "in_use",
            Code::Closed => "closed",
            Code::Invalid => "invalid",
            Code::Limit => "limit",
            Code::Unauthorized => "unauthorized",
            Code::Corrupt => "corrupt",
            Code::Io => "io",
            Code::Unavailable => "unavailable",
            Code::Internal => "internal",
            Code::Stale => "stale",
        }
    }

    /// Parses a code's wire spelling; `None` for an unknown one.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tinystore error: a [`Code`] and a message that names what it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    code: Code,
    message: String,
    stale: Option<Box<Stale>>,
}

/// What a guard's refusal is about: the resource, the fence of the refused
/// write, and the largest fence recorded for the resource (above it). The
/// fences are their values (`Fence::from_u128` makes them fences again:
/// this file sits below fence.rs, whose parse gives an [`Error`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The resource the write was for, e.g. `chats/42`.
    pub resource: String,
    /// The refused write's fence.
    pub fence: u128,
    /// The largest fence recorded for the resource.
    pub largest: u128,
}

impl Error {
    /// An error with this code and message.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            stale: None,
        }
    }

    /// The `stale` error of a guard that refused `stale.fence` for
    /// `stale.resource`, whose recorded fence `stale.largest` is larger.
    pub fn stale(stale: Stale) -> Error {
        Error {
            code: Code::Stale,
            message: format!(
                "the write to {:?} with fence {} was refused: fence {} is recorded for it",
                stale.resource, stale.fence, stale.largest
            ),
            stale: Some(Box::new(stale)),
        }
    }

    /// The resource and fences of a `stale` error; `None` for other codes.
    pub fn stale_detail(&self) -> Option<&Stale> {
        self.stale.as_deref()
    }

    /// The error's code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The message, without the code.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error::new(Code::Invalid, message)
    }

    pub(crate) fn lease_lost(message: impl Into<String>) -> Error {
        Error::new(Code::LeaseLost, message)
    }

    pub(crate) fn closed(message: impl Into<String>) -> Error {
        Error::new(Code::Closed, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Error {
        Error::new(Code::Internal, message)
    }

    /// An `io` error that names what was being done.
    pub(crate) fn io(context: impl fmt::Display, err: std::io::Error) -> Error {
        Error::new(Code::Io, format!("{context}: {err}"))
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Error {
        Error::new(Code::Io, err.to_string())
    }
}
