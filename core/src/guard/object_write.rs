//! The object-storage guard's write (a put, or a delete's tombstone) as a
//! state machine that does no I/O: it says which request to make next and
//! takes what the store answered.
//!
//! The sequence, on the layout of [`super::object_layout`]:
//!
//! 1. **List** the key's fences. One above ours: `stale`, nothing written.
//! 2. **Put** our fence's object (the body, or an empty tombstone), with
//!    the fence (and the tombstone's mark) in its metadata. It needs no
//!    condition: only writers of our own fence write that object.
//! 3. **List** again. One above ours now: our write is not the largest, so
//!    no reader sees it; delete it and refuse with `stale`. Else it is
//!    accepted, and the objects of smaller fences, which no reader can see
//!    any more, are deleted.
//!
//! A put whose answer is lost may have landed. The SDK makes it again
//! (it needs no condition, so the retry lands as the first did), and the
//! listing after it decides as for any put: accepted when no larger fence
//! is listed, `stale` when one is, which deletes our object, as a larger
//! fence put between our put and our listing does with an answer kept. A
//! put that fails unanswered is the SDK's error, its message saying the
//! put may have been written.
//!
//! Deletes are tidying: their failures are ignored, and a reader that
//! meets one half done lists again ([`super::object_read`]). The largest
//! fence listed never goes down, whatever the order of the steps of many
//! writers, lost answers and retried requests included: the model checker
//! in core/tests/integration/guard/model.rs explores them all.

use super::driver::DriverFailure;
use super::object::{check_metadata, METADATA_KEY, TOMBSTONE_KEY};
use super::object_layout::{fence_key, fences_prefix, listed_fences, object_resource};
use super::verdict::Verdict;
use crate::error::{Code, Error, Result, Stale};
use crate::fence::Fence;

/// What the binding does next on an object store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectStep {
    /// List every key under `prefix` (all pages), observed as
    /// [`ObjectObserved::Listed`].
    List {
        /// The prefix to list.
        prefix: String,
    },
    /// Put the body (empty for a tombstone) at `key` with `metadata`,
    /// unconditionally; observed as [`ObjectObserved::Written`].
    Put {
        /// The object to write.
        key: String,
        /// Its metadata: the caller's, the fence, and a tombstone's mark.
        metadata: Vec<(String, String)>,
    },
    /// Delete `key`; observed as [`ObjectObserved::Deleted`] (a failure is
    /// ignored).
    Delete {
        /// The object to delete.
        key: String,
    },
    /// Get `key` (its body, kept by the binding, and its metadata),
    /// observed as [`ObjectObserved::Got`].
    Get {
        /// The object to read.
        key: String,
    },
    /// The protocol ended.
    Done(Verdict),
}

/// What the store answered to the step last given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectObserved {
    /// The keys a [`ObjectStep::List`] found, in any order.
    Listed(Vec<String>),
    /// The [`ObjectStep::Put`] succeeded.
    Written,
    /// The [`ObjectStep::Delete`] succeeded.
    Deleted,
    /// The [`ObjectStep::Get`] found the object, with this metadata.
    Got {
        /// The object's metadata, as the store gave it.
        metadata: Vec<(String, String)>,
    },
    /// The step failed (a 404 of a get is one too).
    Failed(DriverFailure),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Start,
    Before,
    Writing,
    After,
    Tidying { deletes: Vec<String>, then: Verdict },
    Done,
}

/// One guarded write of `fence` to a bucket's key.
#[derive(Debug, Clone)]
pub struct ObjectWrite {
    bucket: String,
    key: String,
    fence: Fence,
    metadata: Vec<(String, String)>,
    tombstone: bool,
    state: State,
}

impl ObjectWrite {
    /// A guarded put of `fence` to `bucket`/`key`, with the caller's own
    /// `metadata` beside the fence.
    pub fn put(
        bucket: &str,
        key: &str,
        fence: Fence,
        metadata: Vec<(String, String)>,
    ) -> ObjectWrite {
        ObjectWrite::new(bucket, key, fence, metadata, false)
    }

    /// A guarded delete of `bucket`/`key` with `fence`: an empty tombstone,
    /// which keeps the fence, so a late holder cannot bring the object back.
    pub fn delete(bucket: &str, key: &str, fence: Fence) -> ObjectWrite {
        ObjectWrite::new(bucket, key, fence, Vec::new(), true)
    }

    fn new(
        bucket: &str,
        key: &str,
        fence: Fence,
        metadata: Vec<(String, String)>,
        tombstone: bool,
    ) -> ObjectWrite {
        ObjectWrite {
            bucket: bucket.to_string(),
            key: key.to_string(),
            fence,
            metadata,
            tombstone,
            state: State::Start,
        }
    }

    /// Whether this write is a delete's tombstone (the binding puts an
    /// empty body).
    pub fn is_tombstone(&self) -> bool {
        self.tombstone
    }

    /// The first step, or the end when the bucket, key or metadata is bad
    /// (`invalid`, nothing written).
    pub fn start(&mut self) -> ObjectStep {
        if self.state != State::Start {
            return self.misuse("start");
        }
        match self.checked() {
            Ok(()) => {
                self.state = State::Before;
                ObjectStep::List {
                    prefix: fences_prefix(&self.key),
                }
            }
            Err(err) => self.end(Verdict::Refused(err)),
        }
    }

    fn checked(&self) -> Result<()> {
        let resource = object_resource(&self.bucket, &self.key)?;
        check_metadata(&resource, self.metadata.iter().map(|(k, _)| k.as_str()))
    }

    fn resource(&self) -> String {
        format!("{}/{}", self.bucket, self.key)
    }

    /// The step after `observed`, the answer to the step last given.
    pub fn observe(&mut self, observed: ObjectObserved) -> ObjectStep {
        let state = std::mem::replace(&mut self.state, State::Done);
        match (state, observed) {
            (State::Before, ObjectObserved::Listed(keys)) => match self.largest_above(&keys) {
                Ok(Some(largest)) => self.end(Verdict::Refused(self.stale(largest))),
                Ok(None) => self.write(),
                Err(err) => self.end(Verdict::Refused(err)),
            },
            (State::Writing, ObjectObserved::Written) => {
                self.state = State::After;
                ObjectStep::List {
                    prefix: fences_prefix(&self.key),
                }
            }
            (State::After, ObjectObserved::Listed(keys)) => self.decide_after(&keys),
            (
                State::Tidying { deletes, then },
                ObjectObserved::Deleted | ObjectObserved::Failed(_),
            ) => self.tidy(deletes, then),
            (State::Writing, ObjectObserved::Failed(failure)) => {
                let doing = format!("the guarded write of object {:?}", self.resource());
                let err = failure.error(&doing);
                let err = match err.code() {
                    // No answer, or the store's own failure: the put may
                    // have landed all the same.
                    Code::Unavailable | Code::Io | Code::Internal => Error::new(
                        err.code(),
                        format!(
                            "{}; the put of {:?} may have been written before its answer was lost: whether it was is unknown, read the object to know",
                            err.message(),
                            fence_key(&self.key, self.fence)
                        ),
                    ),
                    _ => err,
                };
                self.end(Verdict::Driver(err))
            }
            (State::Before | State::After, ObjectObserved::Failed(failure)) => {
                let doing = format!("the guarded write of object {:?}", self.resource());
                self.end(Verdict::Driver(failure.error(&doing)))
            }
            (state, observed) => {
                self.state = state;
                self.misuse(&format!("{observed:?}"))
            }
        }
    }

    fn write(&mut self) -> ObjectStep {
        self.state = State::Writing;
        let mut metadata = self.metadata.clone();
        metadata.push((METADATA_KEY.to_string(), self.fence.text()));
        if self.tombstone {
            metadata.push((TOMBSTONE_KEY.to_string(), "true".to_string()));
        }
        ObjectStep::Put {
            key: fence_key(&self.key, self.fence),
            metadata,
        }
    }

    /// After our put: refused when a larger fence is listed (our object is
    /// deleted), else accepted, the smaller fences' objects deleted.
    fn decide_after(&mut self, keys: &[String]) -> ObjectStep {
        let resource = self.resource();
        let fences = match listed_fences(&resource, &fences_prefix(&self.key), keys) {
            Ok(fences) => fences,
            Err(err) => return self.end(Verdict::Refused(err)),
        };
        let ours = fence_key(&self.key, self.fence);
        if let Some((largest, _)) = fences.last().filter(|(f, _)| *f > self.fence) {
            let stale = self.stale(*largest);
            return self.tidy(vec![ours], Verdict::Refused(stale));
        }
        if !fences.iter().any(|(_, key)| *key == ours) {
            return self.end(Verdict::Refused(Error::internal(format!(
                "the guarded write of object {resource:?} put {ours:?}, but the listing after it does not show it: the store's listings must show a write at once (S3's do)"
            ))));
        }
        let smaller = fences
            .into_iter()
            .filter(|(f, _)| *f < self.fence)
            .map(|(_, k)| k)
            .collect();
        self.tidy(smaller, Verdict::Accepted)
    }

    fn tidy(&mut self, mut deletes: Vec<String>, then: Verdict) -> ObjectStep {
        match deletes.pop() {
            Some(key) => {
                self.state = State::Tidying { deletes, then };
                ObjectStep::Delete { key }
            }
            None => self.end(then),
        }
    }

    /// The largest fence listed, when it is above ours.
    fn largest_above(&self, keys: &[String]) -> Result<Option<Fence>> {
        let fences = listed_fences(&self.resource(), &fences_prefix(&self.key), keys)?;
        Ok(fences.last().map(|(f, _)| *f).filter(|f| *f > self.fence))
    }

    fn stale(&self, largest: Fence) -> Error {
        Error::stale(Stale {
            resource: self.resource(),
            fence: self.fence.get(),
            largest: largest.get(),
        })
    }

    fn end(&mut self, verdict: Verdict) -> ObjectStep {
        self.state = State::Done;
        ObjectStep::Done(verdict)
    }

    fn misuse(&mut self, what: &str) -> ObjectStep {
        let message = format!(
            "the guard of object {:?} was given {what} in state {:?}",
            self.resource(),
            self.state
        );
        self.end(Verdict::Refused(Error::internal(message)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(n: u128) -> Fence {
        Fence::from_u128(n)
    }

    fn listed(fences: &[u128]) -> ObjectObserved {
        ObjectObserved::Listed(fences.iter().map(|n| fence_key("k", f(*n))).collect())
    }

    #[test]
    fn a_first_write_lists_puts_lists_and_is_accepted() {
        let mut w = ObjectWrite::put("b", "k", f(7), vec![("owner".into(), "me".into())]);
        assert_eq!(
            w.start(),
            ObjectStep::List {
                prefix: "k/tinystore-fence/".into()
            }
        );
        let ObjectStep::Put { key, metadata } = w.observe(listed(&[])) else {
            panic!()
        };
        assert_eq!(key, fence_key("k", f(7)));
        assert!(
            metadata.contains(&(METADATA_KEY.into(), f(7).text())),
            "{metadata:?}"
        );
        assert!(matches!(
            w.observe(ObjectObserved::Written),
            ObjectStep::List { .. }
        ));
        assert_eq!(w.observe(listed(&[7])), ObjectStep::Done(Verdict::Accepted));
    }

    #[test]
    fn a_larger_fence_before_refuses_without_writing() {
        let mut w = ObjectWrite::put("b", "k", f(7), vec![]);
        w.start();
        let ObjectStep::Done(Verdict::Refused(err)) = w.observe(listed(&[3, 9])) else {
            panic!()
        };
        let stale = err.stale_detail().unwrap();
        assert_eq!(
            (stale.resource.as_str(), stale.fence, stale.largest),
            ("b/k", 7, 9)
        );
    }

    #[test]
    fn a_larger_fence_after_deletes_ours_and_refuses() {
        let mut w = ObjectWrite::put("b", "k", f(7), vec![]);
        w.start();
        w.observe(listed(&[5]));
        w.observe(ObjectObserved::Written);
        assert_eq!(
            w.observe(listed(&[5, 7, 8])),
            ObjectStep::Delete {
                key: fence_key("k", f(7))
            }
        );
        let failed = ObjectObserved::Failed(DriverFailure::new("gone"));
        let ObjectStep::Done(Verdict::Refused(err)) = w.observe(failed) else {
            panic!()
        };
        assert_eq!(err.code(), Code::Stale);
    }

    #[test]
    fn an_accepted_write_deletes_the_smaller_fences_and_equal_is_rewritten() {
        let mut w = ObjectWrite::delete("b", "k", f(7));
        w.start();
        let ObjectStep::Put { metadata, .. } = w.observe(listed(&[3, 7])) else {
            panic!()
        };
        assert!(metadata.contains(&(TOMBSTONE_KEY.into(), "true".into())));
        w.observe(ObjectObserved::Written);
        assert_eq!(
            w.observe(listed(&[3, 7])),
            ObjectStep::Delete {
                key: fence_key("k", f(3))
            }
        );
        assert_eq!(
            w.observe(ObjectObserved::Deleted),
            ObjectStep::Done(Verdict::Accepted)
        );
    }

    #[test]
    fn a_put_without_an_answer_may_have_been_written() {
        let mut w = ObjectWrite::put("b", "k", f(7), vec![]);
        w.start();
        w.observe(listed(&[]));
        let lost = DriverFailure {
            error_code: Some("connection".into()),
            ..DriverFailure::new("dispatch failure")
        };
        let ObjectStep::Done(Verdict::Driver(err)) = w.observe(ObjectObserved::Failed(lost)) else {
            panic!()
        };
        assert_eq!(err.code(), Code::Unavailable, "{err}");
        assert!(err.message().contains("may have been written"), "{err}");
    }

    #[test]
    fn a_failed_request_is_the_drivers_and_bad_input_invalid() {
        let mut w = ObjectWrite::put("b", "k", f(7), vec![]);
        w.start();
        let denied = DriverFailure {
            http_status: Some(403),
            ..DriverFailure::new("denied")
        };
        let ObjectStep::Done(Verdict::Driver(err)) = w.observe(ObjectObserved::Failed(denied))
        else {
            panic!()
        };
        assert_eq!(err.code(), Code::Unauthorized);
        let mut bad =
            ObjectWrite::put("b", "k", f(7), vec![("Tinystore-Fence".into(), "1".into())]);
        let ObjectStep::Done(Verdict::Refused(err)) = bad.start() else {
            panic!()
        };
        assert_eq!(err.code(), Code::Invalid);
    }
}
