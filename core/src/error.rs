//! The one error type of tinystore, with the codes shared by the wire and
//! every language binding.

use std::fmt;
use std::sync::Arc;

mod code;

pub use code::{Code, CodeNames};

/// A `Result` whose error is a tinystore [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A tinystore error: a [`Code`] and a message that names what it is about.
/// A guard's error may carry the driver's own error as its cause
/// ([`std::error::Error::source`]); two errors are equal when their code,
/// message and stale detail are, whatever their causes.
#[derive(Debug, Clone)]
pub struct Error {
    code: Code,
    message: String,
    stale: Option<Box<Stale>>,
    cause: Option<Cause>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {
    /// The driver's own error itself (not the `Arc` that shares it), so
    /// that `source()?.downcast_ref::<rusqlite::Error>()` reaches it.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}

/// The error a tinystore error was caused by: a driver's or an SDK's.
pub type Cause = Arc<dyn std::error::Error + Send + Sync + 'static>;

impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        (self.code, &self.message, &self.stale) == (other.code, &other.message, &other.stale)
    }
}

impl Eq for Error {}

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
            cause: None,
        }
    }

    /// This error with `cause` as its [`source`](std::error::Error::source):
    /// the driver's own error behind a guard's.
    pub fn with_cause(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.cause = Some(Arc::new(cause));
        self
    }

    /// [`Error::with_cause`] with a cause already shared.
    pub fn with_shared_cause(mut self, cause: Cause) -> Error {
        self.cause = Some(cause);
        self
    }

    /// The error this one was caused by, as given to [`Error::with_cause`].
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_ref()
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
            cause: None,
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

    /// The `closed` error of a call on a store handle that was closed;
    /// `what` is its directory or address.
    pub fn store_closed(what: impl fmt::Display) -> Error {
        Error::closed(format!("store {what} was closed"))
    }

    /// The `closed` error of a call on a group handle (locks, semaphore,
    /// election) that was closed.
    pub fn group_closed(name: &str) -> Error {
        Error::closed(format!("group {name} was closed"))
    }

    /// The `lease_lost` error of a call on a lease that was released;
    /// `what` names the lease, as `lock jobs/7` or `election sched`.
    pub fn released(what: impl fmt::Display) -> Error {
        Error::lease_lost(format!("the lease on {what} was released"))
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
