//! How a guard's protocol ends: accepted, refused by the guard, or failed
//! in the driver.

use crate::error::Error;

/// The end of a guard's protocol, which a binding turns into its
/// language's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The write is accepted: commit it (SQL), or it landed (objects).
    Accepted,
    /// The guard's own error (`stale`, `corrupt`, `invalid`, `limit`,
    /// `internal`): raise it, with the driver's error as its cause when the
    /// last observation was one (a missing register table).
    Refused(Error),
    /// The driver's own error, classified (see [`super::driver`]): Python
    /// and TypeScript raise the driver's error as it was; Rust and Go
    /// return this error with the driver's as its cause.
    Driver(Error),
}

impl Verdict {
    /// The verdict as a `Result`: the error of a refusal or a driver's
    /// failure alike.
    pub fn into_result(self) -> Result<(), Error> {
        match self {
            Verdict::Accepted => Ok(()),
            Verdict::Refused(err) | Verdict::Driver(err) => Err(err),
        }
    }

    /// [`Verdict::into_result`], the error caused by `cause`: the driver's
    /// error of the step that ended the protocol, if one did.
    pub fn into_result_caused_by<E>(self, cause: Option<E>) -> Result<(), Error>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        match (self.into_result(), cause) {
            (Err(err), Some(cause)) => Err(err.with_cause(cause)),
            (result, _) => result,
        }
    }
}
