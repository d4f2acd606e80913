//! How a hold ends: the one rule every language's `hold` follows, whether
//! it is a Rust closure, a Python `async with`, a TypeScript callback or a
//! Go func.
//!
//! 1. The body's own error, whatever releasing said: a release error never
//!    hides it.
//! 2. Else, when the lease was lost before the body ended, the error that
//!    says why, with its code: `closed` when its store was closed;
//!    `lease_lost` when it ran out, or its connection or server broke. A
//!    body that ended with only the cancellation the loss itself caused
//!    (Python's `CancelledError` injected into the block, Go's `ctx`
//!    cancelled with the loss as its cause, the abort of TypeScript's
//!    `lease.signal`, a Rust body stopped by the loss) has no error of its
//!    own: this rule answers it.
//! 3. Else the body's value.
//!
//! A lease's `release` (and `lost_reason`) already give the error of rule 2
//! with the right code, so a binding never reinterprets errors: it calls
//! [`hold_outcome`], or, when the body's error is its language's own,
//! [`EndHold::end_hold`] on the lease, saying whether that error was the
//! loss's cancellation; the core decides what the hold gives.

use crate::error::{Code, Error, Result};
use std::future::Future;

/// A hold's end as a binding makes it, on a lease, a permit or a
/// leadership: binding plumbing, reached as `tinystore::binding::EndHold`
/// and hidden from the crate's docs.
pub trait EndHold {
    /// Releases it (resigns a leadership) as a hold's end, after a body
    /// that ended `body_ok` (true) or with an error (false), and gives
    /// what the hold adds to the body's outcome, by the rule of
    /// [`hold_outcome`]: `Ok` when the body's outcome stands; else
    /// `closed` or `lease_lost`, when it was lost before the body ended. A
    /// body's own error always stands (the release still happens), unless
    /// `cancelled_by_loss` says that error was only the cancellation the
    /// loss itself caused (Python's `CancelledError` injected into the
    /// block, Go's `ctx` cancelled with the loss as cause, the abort of
    /// TypeScript's `lease.signal`) and the lease was indeed lost: then the
    /// hold fails with the loss. A binding whose body's errors are its
    /// language's own ends its hold with this.
    fn end_hold(
        &self,
        body_ok: bool,
        cancelled_by_loss: bool,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// How a hold's body ended, as its language saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyEnd {
    /// It returned (its value stands unless the lease was lost).
    Returned,
    /// It failed with an error of its own, which always stands.
    Failed,
    /// It failed with only the cancellation the lease's loss caused: the
    /// hold answers with the loss (rule 2).
    CancelledByLoss,
}

impl BodyEnd {
    /// From what a binding tells: the body ended without an error
    /// (`body_ok`), or with one that was only the cancellation the loss
    /// caused (`cancelled_by_loss`), or with its own.
    pub(crate) fn told(body_ok: bool, cancelled_by_loss: bool) -> BodyEnd {
        match (body_ok, cancelled_by_loss) {
            (true, _) => BodyEnd::Returned,
            (false, true) => BodyEnd::CancelledByLoss,
            (false, false) => BodyEnd::Failed,
        }
    }
}

/// What a hold adds to its body's outcome, given how the body ended and
/// what releasing the lease said afterwards: `Ok` when the body's outcome
/// stands (its value, or its own error), else the error the hold fails
/// with (`closed` or `lease_lost`: the lease was lost before the body
/// ended). A body told it was cancelled by a loss that its release did not
/// see keeps its error: only a real loss replaces it.
pub(crate) fn hold_end(body: BodyEnd, release: Result<()>) -> Result<()> {
    match body {
        BodyEnd::Returned => release,
        BodyEnd::Failed => Ok(()),
        BodyEnd::CancelledByLoss => match release {
            Err(loss) if matches!(loss.code(), Code::Closed | Code::LeaseLost) => Err(loss),
            _ => Ok(()),
        },
    }
}

/// What a hold returns, given how its body ended and what releasing the
/// lease said afterwards: the body's error first; else the release's error
/// (the lease was lost before the body ended: `closed` or `lease_lost`);
/// else the body's value.
pub fn hold_outcome<T, E: From<Error>>(body: Result<T, E>, release: Result<()>) -> Result<T, E> {
    let ended = if body.is_ok() {
        BodyEnd::Returned
    } else {
        BodyEnd::Failed
    };
    hold_end(ended, release).map_err(E::from)?;
    body
}

/// What a hold whose body was stopped by its lease's loss returns: the
/// loss, as its release told it (rule 2); `lost` (the reason seen when the
/// body was stopped) if the release, oddly, did not.
pub(crate) fn stopped_outcome<T, E: From<Error>>(release: Result<()>, lost: Error) -> Result<T, E> {
    match hold_end(BodyEnd::CancelledByLoss, release) {
        Err(loss) => Err(E::from(loss)),
        Ok(()) => Err(E::from(lost)),
    }
}

#[cfg(test)]
mod tests {
    use super::{hold_end, BodyEnd};
    use crate::error::{Code, Error};

    #[test]
    fn only_a_real_loss_replaces_a_cancelled_body_s_error() {
        let lost = || Err(Error::lease_lost("the lease on lock a/b ran out"));
        let closed = || Err(Error::closed("store d was closed"));
        let io = || Err(Error::new(Code::Io, "disk"));
        let code = |r: crate::Result<()>| r.err().map(|e| e.code());
        assert_eq!(code(hold_end(BodyEnd::Returned, Ok(()))), None);
        assert_eq!(
            code(hold_end(BodyEnd::Returned, lost())),
            Some(Code::LeaseLost)
        );
        assert_eq!(code(hold_end(BodyEnd::Failed, lost())), None);
        assert_eq!(code(hold_end(BodyEnd::Failed, io())), None);
        assert_eq!(
            code(hold_end(BodyEnd::CancelledByLoss, lost())),
            Some(Code::LeaseLost)
        );
        assert_eq!(
            code(hold_end(BodyEnd::CancelledByLoss, closed())),
            Some(Code::Closed)
        );
        assert_eq!(code(hold_end(BodyEnd::CancelledByLoss, Ok(()))), None);
        assert_eq!(code(hold_end(BodyEnd::CancelledByLoss, io())), None);
        assert_eq!(BodyEnd::told(true, true), BodyEnd::Returned);
        assert_eq!(BodyEnd::told(false, true), BodyEnd::CancelledByLoss);
        assert_eq!(BodyEnd::told(false, false), BodyEnd::Failed);
    }
}
