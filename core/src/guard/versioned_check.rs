//! The guard on an object store that compares versions (Google Cloud
//! Storage's generations, Azure Blob Storage's ETags), as a machine that
//! does no I/O: the fence lives in the object's own metadata, and a put is
//! made on the condition that the object is still the version read.
//!
//! The steps: read the object's version and metadata; refuse with `stale`
//! when its fence is larger (`corrupt` when it is not 40 digits); else put
//! the caller's body with the fence in its metadata, on the condition that
//! the object is still that version (GCS `ifGenerationMatch`, Azure
//! `If-Match`), or still absent (GCS `ifGenerationMatch=0`, Azure
//! `If-None-Match: *`). A failed condition means another writer came in
//! between: read again and decide again, at most [`MAX_TRIES`] puts in
//! all, then `limit`. An object without a fence (written without the
//! guard) is taken as no fence recorded.
//!
//! A put whose answer was lost (a dropped connection, a timeout, a 5xx)
//! may have been written. A client that makes it again (object_store's
//! retries) sees the retry's condition fail, for the first attempt
//! changed the version; the guard reads again. Finding its own fence, it
//! puts once more (accepted). Finding a larger fence, it cannot tell a
//! write that landed and was then overtaken from one that never landed:
//! the binding tells each retried attempt's answer ([`VersionedCheck::attempted`]),
//! and the put ends in `unavailable`, "may have been written", never
//! `stale`, which says nothing was written (and which a lease's store
//! would count). A put that fails without an answer (no retry) is the
//! client's error, its message saying the put may have been written.
//!
//! A delete cannot be guarded this way: it takes the fence with the
//! object, and a late holder's put would then find no fence. The guard
//! offers puts only (docs/guards.md says what to do instead).
//!
//! ```
//! use tinystore::guard::versioned_check::{
//!     Condition, VersionedCheck, VersionedObserved, VersionedStep, VersionedStore,
//! };
//! use tinystore::guard::Verdict;
//! use tinystore::Fence;
//! let mut check = VersionedCheck::new(VersionedStore::Gcs, "bucket/chats/42", Fence::from_u128(7));
//! assert_eq!(check.start(), VersionedStep::Read);
//! let step = check.observe(VersionedObserved::Absent);
//! let VersionedStep::Put { condition, metadata_key, fence } = step else { unreachable!() };
//! assert_eq!((condition, metadata_key), (Condition::Absent, "tinystore-fence"));
//! assert_eq!(fence, Fence::from_u128(7).text());
//! assert_eq!(check.observe(VersionedObserved::Written), VersionedStep::Done(Verdict::Accepted));
//! ```

use super::attempt::unknown_outcome;
use super::decide::refused_in;
use super::driver::DriverFailure;
use super::object::{METADATA_KEY, TOMBSTONE_KEY};
use super::resource::check_resource;
use super::verdict::Verdict;
use crate::error::{Code, Error, Result};
use crate::fence::Fence;

/// How many conditional puts a guarded put makes in all before it gives up
/// on an object that other writers keep replacing.
pub const MAX_TRIES: u32 = 5;

/// The store a guard runs on, for its metadata key and its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionedStore {
    /// Google Cloud Storage: versions are generations.
    Gcs,
    /// Azure Blob Storage: versions are ETags.
    Azure,
}

impl VersionedStore {
    /// The metadata key that holds the fence: `tinystore-fence` on GCS,
    /// `tinystore_fence` on Azure, whose metadata names are C# identifiers.
    pub fn metadata_key(self) -> &'static str {
        match self {
            VersionedStore::Gcs => METADATA_KEY,
            VersionedStore::Azure => "tinystore_fence",
        }
    }

    /// The store's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            VersionedStore::Gcs => "Google Cloud Storage",
            VersionedStore::Azure => "Azure Blob Storage",
        }
    }

    /// Checks the caller's own metadata for a guarded put to `resource`:
    /// the guard's key, in any case and spelling (`-` or `_`), is
    /// `invalid`, naming it.
    pub fn check_metadata<'a>(
        self,
        resource: &str,
        keys: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        for name in keys {
            let lower = name.to_ascii_lowercase().replace('_', "-");
            if lower == METADATA_KEY || lower == TOMBSTONE_KEY {
                return Err(Error::invalid(format!(
                    "the metadata of a guarded put to {resource:?} may not set {name:?}: it is the guard's own key, which the guard writes; nothing was written"
                )));
            }
        }
        Ok(())
    }
}

/// The condition of a put.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// The object must not exist (GCS `ifGenerationMatch=0`, Azure
    /// `If-None-Match: *`).
    Absent,
    /// The object must still be this version (GCS `ifGenerationMatch`,
    /// Azure `If-Match`), as the read gave it.
    Version(String),
}

/// What the binding does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionedStep {
    /// Read the object's version and metadata (GCS: its metadata; Azure:
    /// its properties), and observe [`VersionedObserved::Found`] or
    /// [`VersionedObserved::Absent`].
    Read,
    /// Put the caller's body and metadata, with `metadata_key` set to
    /// `fence` (40 digits), on `condition`.
    Put {
        /// The put's condition.
        condition: Condition,
        /// The metadata key of the fence.
        metadata_key: &'static str,
        /// The fence as 40 digits.
        fence: String,
    },
    /// The protocol ended.
    Done(Verdict),
}

/// What the binding observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionedObserved {
    /// The object exists at `version`; `fence` is its fence metadata's
    /// value, if it has one.
    Found {
        /// The generation or ETag, as the store gave it.
        version: String,
        /// The fence metadata's value.
        fence: Option<String>,
    },
    /// No such object.
    Absent,
    /// The put landed.
    Written,
    /// The put's condition failed (HTTP 412, or Azure's 409
    /// `BlobAlreadyExists` for `If-None-Match: *`).
    ConditionFailed,
    /// A read or a put failed otherwise.
    Failed(DriverFailure),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Reading,
    Putting,
    Done,
}

/// One guarded put of `fence` to one object.
#[derive(Debug, Clone)]
pub struct VersionedCheck {
    store: VersionedStore,
    resource: String,
    fence: Fence,
    state: State,
    puts: u32,
    /// Whether an attempt of a put whose outcome is unknown was made
    /// again ([`VersionedCheck::attempted`]).
    unknown_attempt: bool,
}

impl VersionedCheck {
    /// A guarded put of `fence` to the object `resource` (its bucket or
    /// container and name, as messages name it) on `store`.
    pub fn new(store: VersionedStore, resource: &str, fence: Fence) -> VersionedCheck {
        VersionedCheck {
            store,
            resource: resource.to_string(),
            fence,
            state: State::Start,
            puts: 0,
            unknown_attempt: false,
        }
    }

    /// The first step: the read, or the end when the resource is bad.
    pub fn start(&mut self) -> VersionedStep {
        if self.state != State::Start {
            return self.misuse("start");
        }
        if let Err(err) = check_resource(&self.resource) {
            return self.end(Verdict::Refused(err));
        }
        self.read()
    }

    /// Tells the machine that an attempt of the put last given got
    /// `status` as its answer (`None`: no answer came), the client making
    /// it again. An attempt whose outcome that leaves unknown
    /// ([`unknown_outcome`]: no answer, a 5xx, a 408) may have been
    /// written: a larger fence found from then on ends in `unavailable`
    /// (the outcome unknown) rather than `stale`. Call it for each attempt
    /// the client made again, before observing the put's outcome.
    pub fn attempted(&mut self, status: Option<u16>) {
        self.unknown_attempt |= unknown_outcome(status);
    }

    /// The step after `observed`.
    pub fn observe(&mut self, observed: VersionedObserved) -> VersionedStep {
        match (self.state, observed) {
            (State::Reading, VersionedObserved::Absent) => self.put(Condition::Absent),
            (State::Reading, VersionedObserved::Found { version, fence }) => {
                self.found(version, fence.as_deref())
            }
            (State::Putting, VersionedObserved::Written) => self.end(Verdict::Accepted),
            (State::Putting, VersionedObserved::ConditionFailed) => self.raced(),
            (State::Reading, VersionedObserved::Failed(failure)) => {
                let doing = format!("guarding {:?} on {}", self.resource, self.store.name());
                self.end(Verdict::Driver(failure.error(&doing)))
            }
            (State::Putting, VersionedObserved::Failed(failure)) => {
                let doing = format!("guarding {:?} on {}", self.resource, self.store.name());
                let err = failure.error(&doing);
                let err = match err.code() {
                    // No answer, or the store's own failure: the put may
                    // have landed all the same.
                    Code::Unavailable | Code::Io | Code::Internal => Error::new(
                        err.code(),
                        format!(
                            "{}; the put may have been written before its answer was lost: whether it was is unknown, read the object to know",
                            err.message()
                        ),
                    ),
                    _ => err,
                };
                self.end(Verdict::Driver(err))
            }
            (_, observed) => self.misuse(&format!("{observed:?}")),
        }
    }

    fn found(&mut self, version: String, recorded: Option<&str>) -> VersionedStep {
        let Some(text) = recorded else {
            return self.put(Condition::Version(version));
        };
        let register = format!("the metadata {:?}", self.store.metadata_key());
        match refused_in(&register, &self.resource, self.fence, Some(text)) {
            Ok(()) => self.put(Condition::Version(version)),
            Err(err) if err.code() == Code::Stale && self.unknown_attempt => {
                let largest = err.stale_detail().map_or(0, |s| s.largest);
                let err = Error::new(
                    Code::Unavailable,
                    format!(
                        "the guarded put to {:?} on {} with fence {} lost an answer and was made again, whose condition failed; the object now carries fence {largest}: the put that went unanswered may have been written before it; whether it was is unknown",
                        self.resource,
                        self.store.name(),
                        self.fence
                    ),
                );
                self.end(Verdict::Refused(err))
            }
            Err(err) if matches!(err.code(), Code::Stale | Code::Corrupt) => {
                self.end(Verdict::Refused(err))
            }
            // A smaller fence: the write may go ahead.
            Err(_) => self.put(Condition::Version(version)),
        }
    }

    fn raced(&mut self) -> VersionedStep {
        if self.puts >= MAX_TRIES {
            let err = Error::new(
                Code::Limit,
                format!(
                    "the guarded put to {:?} on {} lost to another writer {MAX_TRIES} times in a row, each time between the read and the put; nothing was written",
                    self.resource,
                    self.store.name()
                ),
            );
            return self.end(Verdict::Refused(err));
        }
        self.read()
    }

    fn read(&mut self) -> VersionedStep {
        self.state = State::Reading;
        VersionedStep::Read
    }

    fn put(&mut self, condition: Condition) -> VersionedStep {
        self.state = State::Putting;
        self.puts += 1;
        VersionedStep::Put {
            condition,
            metadata_key: self.store.metadata_key(),
            fence: self.fence.text(),
        }
    }

    fn end(&mut self, verdict: Verdict) -> VersionedStep {
        self.state = State::Done;
        VersionedStep::Done(verdict)
    }

    fn misuse(&mut self, what: &str) -> VersionedStep {
        let err = Error::internal(format!(
            "the guard of {:?} on {} was driven out of order: {what} in state {:?}",
            self.resource,
            self.store.name(),
            self.state
        ));
        self.end(Verdict::Refused(err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fence(n: u128) -> Fence {
        Fence::from_u128(n)
    }

    fn put_of(step: VersionedStep) -> Condition {
        match step {
            VersionedStep::Put { condition, .. } => condition,
            other => panic!("expected a put, got {other:?}"),
        }
    }

    fn found(version: &str, recorded: Option<u128>) -> VersionedObserved {
        VersionedObserved::Found {
            version: version.into(),
            fence: recorded.map(|n| fence(n).text()),
        }
    }

    fn refused(step: VersionedStep) -> Error {
        match step {
            VersionedStep::Done(Verdict::Refused(err)) => err,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_new_object_is_put_only_if_still_absent() {
        let mut check = VersionedCheck::new(VersionedStore::Azure, "c/r", fence(7));
        assert_eq!(check.start(), VersionedStep::Read);
        let step = check.observe(VersionedObserved::Absent);
        let VersionedStep::Put {
            condition,
            metadata_key,
            fence: text,
        } = step
        else {
            panic!("{step:?}")
        };
        assert_eq!(condition, Condition::Absent);
        assert_eq!(metadata_key, "tinystore_fence");
        assert_eq!(text.len(), 40);
        assert_eq!(
            check.observe(VersionedObserved::Written),
            VersionedStep::Done(Verdict::Accepted)
        );
    }

    #[test]
    fn equal_smaller_and_no_fence_are_put_on_the_version_read() {
        for recorded in [Some(7), Some(3), None] {
            let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
            check.start();
            let condition = put_of(check.observe(found("12", recorded)));
            assert_eq!(condition, Condition::Version("12".into()), "{recorded:?}");
        }
    }

    #[test]
    fn a_larger_fence_is_stale_with_the_largest() {
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        let err = refused(check.observe(found("12", Some(9))));
        assert_eq!(err.code(), Code::Stale);
        let stale = err.stale_detail().unwrap();
        assert_eq!((stale.fence, stale.largest), (7, 9));
        assert_eq!(stale.resource, "b/r");
    }

    #[test]
    fn a_malformed_fence_is_corrupt_naming_the_metadata() {
        let mut check = VersionedCheck::new(VersionedStore::Azure, "c/r", fence(7));
        check.start();
        let step = check.observe(VersionedObserved::Found {
            version: "\"0x1\"".into(),
            fence: Some("seven".into()),
        });
        let err = refused(step);
        assert_eq!(err.code(), Code::Corrupt);
        assert!(err.message().contains("tinystore_fence"), "{err}");
    }

    #[test]
    fn a_lost_race_reads_again_and_decides_again() {
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        check.observe(found("1", Some(5)));
        assert_eq!(
            check.observe(VersionedObserved::ConditionFailed),
            VersionedStep::Read
        );
        let err = refused(check.observe(found("2", Some(9))));
        assert_eq!(err.stale_detail().unwrap().largest, 9);
    }

    #[test]
    fn a_larger_fence_after_a_lost_answer_is_unavailable_not_stale() {
        let mut check = VersionedCheck::new(VersionedStore::Azure, "c/r", fence(7));
        check.start();
        put_of(check.observe(found("1", Some(5))));
        check.attempted(None);
        assert_eq!(
            check.observe(VersionedObserved::ConditionFailed),
            VersionedStep::Read
        );
        let err = refused(check.observe(found("3", Some(9))));
        assert_eq!(err.code(), Code::Unavailable, "{err}");
        assert!(err.stale_detail().is_none());
        assert!(err.message().contains("may have been written"), "{err}");
        // Its own fence found: put again on the new version, accepted.
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        put_of(check.observe(VersionedObserved::Absent));
        check.attempted(None);
        check.observe(VersionedObserved::ConditionFailed);
        let condition = put_of(check.observe(found("2", Some(7))));
        assert_eq!(condition, Condition::Version("2".into()));
        assert_eq!(
            check.observe(VersionedObserved::Written),
            VersionedStep::Done(Verdict::Accepted)
        );
        // A malformed fence is corrupt all the same.
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        put_of(check.observe(VersionedObserved::Absent));
        check.attempted(None);
        check.observe(VersionedObserved::ConditionFailed);
        let step = check.observe(VersionedObserved::Found {
            version: "2".into(),
            fence: Some("seven".into()),
        });
        assert_eq!(refused(step).code(), Code::Corrupt);
    }

    #[test]
    fn a_retried_attempt_that_was_answered_leaves_a_larger_fence_stale() {
        for status in [Some(429), Some(412), Some(400)] {
            let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
            check.start();
            put_of(check.observe(found("1", Some(5))));
            check.attempted(status);
            check.observe(VersionedObserved::ConditionFailed);
            let err = refused(check.observe(found("2", Some(9))));
            assert_eq!(err.code(), Code::Stale, "{status:?}: {err}");
        }
        // One unanswered attempt among answered ones leaves it in doubt.
        let mut check = VersionedCheck::new(VersionedStore::Azure, "c/r", fence(7));
        check.start();
        put_of(check.observe(found("1", Some(5))));
        for status in [Some(429), Some(503), Some(429)] {
            check.attempted(status);
        }
        check.observe(VersionedObserved::ConditionFailed);
        let err = refused(check.observe(found("2", Some(9))));
        assert_eq!(err.code(), Code::Unavailable, "{err}");
    }

    #[test]
    fn a_put_without_an_answer_may_have_been_written() {
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        put_of(check.observe(VersionedObserved::Absent));
        let step = check.observe(VersionedObserved::Failed(DriverFailure {
            error_code: Some("connection".into()),
            ..DriverFailure::new("connection closed before message completed")
        }));
        let VersionedStep::Done(Verdict::Driver(err)) = step else {
            panic!("{step:?}")
        };
        assert_eq!(err.code(), Code::Unavailable, "{err}");
        assert!(err.message().contains("may have been written"), "{err}");
        // A read without an answer wrote nothing, and says nothing of it.
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        let step = check.observe(VersionedObserved::Failed(DriverFailure {
            error_code: Some("connection".into()),
            ..DriverFailure::new("connection refused")
        }));
        let VersionedStep::Done(Verdict::Driver(err)) = step else {
            panic!("{step:?}")
        };
        assert!(!err.message().contains("may have been written"), "{err}");
    }

    #[test]
    fn endless_races_end_in_limit_after_max_tries_puts() {
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        check.start();
        for n in 1..=MAX_TRIES {
            put_of(check.observe(found(&n.to_string(), Some(5))));
            let step = check.observe(VersionedObserved::ConditionFailed);
            if n < MAX_TRIES {
                assert_eq!(step, VersionedStep::Read);
            } else {
                assert_eq!(refused(step).code(), Code::Limit);
            }
        }
    }

    #[test]
    fn a_bad_resource_is_invalid_before_any_call() {
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "", fence(7));
        assert_eq!(refused(check.start()).code(), Code::Invalid);
    }

    #[test]
    fn a_failed_call_is_the_drivers_error_classified() {
        let mut check = VersionedCheck::new(VersionedStore::Azure, "c/r", fence(7));
        check.start();
        let step = check.observe(VersionedObserved::Failed(DriverFailure {
            http_status: Some(403),
            message: "forbidden".into(),
            ..DriverFailure::default()
        }));
        let VersionedStep::Done(Verdict::Driver(err)) = step else {
            panic!("{step:?}")
        };
        assert_eq!(err.code(), Code::Unauthorized);
    }

    #[test]
    fn out_of_order_is_internal() {
        let mut check = VersionedCheck::new(VersionedStore::Gcs, "b/r", fence(7));
        assert_eq!(
            refused(check.observe(VersionedObserved::Written)).code(),
            Code::Internal
        );
    }

    #[test]
    fn the_guards_own_metadata_is_refused_in_either_spelling() {
        let store = VersionedStore::Azure;
        assert_eq!(store.check_metadata("c/r", ["owner"]), Ok(()));
        for key in ["tinystore_fence", "Tinystore-Fence", "TINYSTORE_DELETED"] {
            let err = store.check_metadata("c/r", [key]).unwrap_err();
            assert_eq!(err.code(), Code::Invalid);
            assert!(err.message().contains(key), "{err}");
        }
    }
}
