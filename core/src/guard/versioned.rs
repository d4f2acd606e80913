//! The calls of the guard on stores that compare versions, written once:
//! [`VersionedCheck`] driven on a [`Versioned`] client, which
//! [`super::gcs`] (gcloud-storage) and [`super::azure`] (object_store)
//! make.

use super::driver::DriverFailure;
use super::versioned_check::{
    Condition, VersionedCheck, VersionedObserved, VersionedStep, VersionedStore,
};
use crate::error::{Error, Result};
use crate::fence::Fence;
use std::io::ErrorKind;

/// What a read found: the object's version and its fence metadata.
pub(super) struct Found {
    pub version: String,
    pub fence: Option<String>,
}

/// How a conditional put ended, when the client did not fail.
pub(super) enum Put<W> {
    /// It landed; the client's answer.
    Written(W),
    /// Its condition failed: another writer came in between, or the
    /// client made the put again after an attempt whose outcome is
    /// unknown, which may have landed and changed the version itself.
    ConditionFailed {
        /// The answers of the attempts the client made again (`None`
        /// where none came, or where the client does not say which).
        retried: Vec<Option<u16>>,
    },
}

/// One object on one client, as the guard reads and puts it.
pub(super) trait Versioned {
    /// The client's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// The client's answer to a put that landed.
    type Written;
    /// The object's version and fence, or `None` when it does not exist.
    async fn read(&self) -> std::result::Result<Option<Found>, Self::Error>;
    /// The caller's body and metadata, with `key` set to `fence`, put on
    /// `condition`.
    async fn put(
        &self,
        condition: &Condition,
        key: &str,
        fence: &str,
    ) -> std::result::Result<Put<Self::Written>, Self::Error>;
    /// What the client's error reports, for core to classify.
    fn failure(err: &Self::Error) -> DriverFailure;
}

/// The guarded put of `fence` to `resource` on `client`: its answer, or
/// `stale`, `corrupt`, `limit` or the client's error classified (the
/// client's as its source).
pub(super) async fn put<V: Versioned>(
    client: &V,
    on: VersionedStore,
    resource: &str,
    fence: Fence,
) -> Result<V::Written> {
    let mut check = VersionedCheck::new(on, resource, fence);
    let mut step = check.start();
    let mut cause: Option<V::Error> = None;
    let mut written: Option<V::Written> = None;
    loop {
        let observed = match step {
            VersionedStep::Done(verdict) => {
                verdict.into_result_caused_by(cause)?;
                return written
                    .ok_or_else(|| Error::internal("a guarded put was accepted unwritten"));
            }
            VersionedStep::Read => match client.read().await {
                Ok(None) => VersionedObserved::Absent,
                Ok(Some(Found { version, fence })) => VersionedObserved::Found { version, fence },
                Err(err) => failed::<V>(err, &mut cause),
            },
            VersionedStep::Put {
                condition,
                metadata_key,
                fence,
            } => match client.put(&condition, metadata_key, &fence).await {
                Ok(Put::Written(answer)) => {
                    written = Some(answer);
                    VersionedObserved::Written
                }
                Ok(Put::ConditionFailed { retried }) => {
                    for status in retried {
                        check.attempted(status);
                    }
                    VersionedObserved::ConditionFailed
                }
                Err(err) => failed::<V>(err, &mut cause),
            },
        };
        step = check.observe(observed);
    }
}

/// A failed call observed, its error kept as the verdict's cause.
fn failed<V: Versioned>(err: V::Error, cause: &mut Option<V::Error>) -> VersionedObserved {
    let failure = V::failure(&err);
    *cause = Some(err);
    VersionedObserved::Failed(failure)
}

/// Whether a request never got an answer: the HTTP client's error for a
/// refused connection, a timeout or a request cut while it was sent or
/// before its answer came, or a refused, reset or timed-out socket,
/// somewhere in `err`'s chain.
pub(super) fn connection_lost(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(err);
    while let Some(e) = source {
        if let Some(http) = e.downcast_ref::<reqwest::Error>() {
            if http.status().is_none()
                && (http.is_connect() || http.is_timeout() || http.is_request())
            {
                return true;
            }
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::NotConnected
                    | ErrorKind::TimedOut
                    | ErrorKind::UnexpectedEof
                    | ErrorKind::BrokenPipe
            );
        }
        source = e.source();
    }
    false
}
