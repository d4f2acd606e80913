//! The object-storage guard's read as a state machine that does no I/O:
//! the object a reader sees is the one of the largest fence listed under
//! the key (see [`super::object_layout`]).
//!
//! It lists the key's fences and gets the largest one's object. A get
//! that finds nothing (a larger writer deleted it in between) lists again,
//! at most [`MAX_TRIES`] times in all, then `limit`. A tombstone, a guarded
//! delete's, reads as no object.

use super::object::{MAX_TRIES, TOMBSTONE_KEY};
use super::object_layout::{fences_prefix, listed_fences, object_resource};
use super::object_write::{ObjectObserved, ObjectStep};
use super::verdict::Verdict;
use crate::error::{Code, Error};
use crate::fence::Fence;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Listing,
    Getting(Fence),
    Done,
}

/// One read of a guarded object.
#[derive(Debug, Clone)]
pub struct ObjectRead {
    bucket: String,
    key: String,
    tries: u32,
    found: Option<Fence>,
    state: State,
}

impl ObjectRead {
    /// A read of `bucket`/`key`.
    pub fn new(bucket: &str, key: &str) -> ObjectRead {
        ObjectRead {
            bucket: bucket.to_string(),
            key: key.to_string(),
            tries: 0,
            found: None,
            state: State::Start,
        }
    }

    /// After [`Verdict::Accepted`]: the fence of the object the last get
    /// read, or `None` when there is no object (none listed, or a
    /// tombstone).
    pub fn found(&self) -> Option<Fence> {
        self.found
    }

    /// The first step, or the end for a bad bucket or key (`invalid`).
    pub fn start(&mut self) -> ObjectStep {
        if self.state != State::Start {
            return self.internal("start");
        }
        if let Err(err) = object_resource(&self.bucket, &self.key) {
            return self.end(Verdict::Refused(err));
        }
        self.list()
    }

    fn list(&mut self) -> ObjectStep {
        self.tries += 1;
        self.state = State::Listing;
        ObjectStep::List {
            prefix: fences_prefix(&self.key),
        }
    }

    /// The step after `observed`, the answer to the step last given.
    pub fn observe(&mut self, observed: ObjectObserved) -> ObjectStep {
        let resource = format!("{}/{}", self.bucket, self.key);
        match (self.state, observed) {
            (State::Listing, ObjectObserved::Listed(keys)) => {
                match listed_fences(&resource, &fences_prefix(&self.key), &keys) {
                    Ok(fences) => match fences.last() {
                        Some((fence, key)) => {
                            self.state = State::Getting(*fence);
                            ObjectStep::Get { key: key.clone() }
                        }
                        None => self.end(Verdict::Accepted),
                    },
                    Err(err) => self.end(Verdict::Refused(err)),
                }
            }
            (State::Getting(fence), ObjectObserved::Got { metadata }) => {
                let tombstone = metadata
                    .iter()
                    .any(|(k, v)| k.eq_ignore_ascii_case(TOMBSTONE_KEY) && v == "true");
                self.found = (!tombstone).then_some(fence);
                self.end(Verdict::Accepted)
            }
            (State::Getting(_), ObjectObserved::Failed(failure))
                if failure.http_status == Some(404) =>
            {
                if self.tries < MAX_TRIES {
                    return self.list();
                }
                self.end(Verdict::Refused(Error::new(
                    Code::Limit,
                    format!(
                        "reading object {resource:?}: its largest fence's object was deleted by a later writer {MAX_TRIES} times in a row, each time between the listing and the get"
                    ),
                )))
            }
            (State::Listing | State::Getting(_), ObjectObserved::Failed(failure)) => self.end(
                Verdict::Driver(failure.error(&format!("reading object {resource:?}"))),
            ),
            (_, observed) => self.internal(&format!("{observed:?}")),
        }
    }

    fn end(&mut self, verdict: Verdict) -> ObjectStep {
        self.state = State::Done;
        ObjectStep::Done(verdict)
    }

    fn internal(&mut self, what: &str) -> ObjectStep {
        let message = format!(
            "the read of object {:?} was given {what} in state {:?}",
            format!("{}/{}", self.bucket, self.key),
            self.state
        );
        self.end(Verdict::Refused(Error::internal(message)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::driver::DriverFailure;
    use crate::guard::object_layout::fence_key;

    fn listed(fences: &[u128]) -> ObjectObserved {
        ObjectObserved::Listed(
            fences
                .iter()
                .map(|n| fence_key("k", Fence::from_u128(*n)))
                .collect(),
        )
    }

    #[test]
    fn the_largest_fence_is_read_and_a_tombstone_is_none() {
        let mut r = ObjectRead::new("b", "k");
        r.start();
        assert_eq!(
            r.observe(listed(&[9, 10])),
            ObjectStep::Get {
                key: fence_key("k", Fence::from_u128(10))
            }
        );
        assert_eq!(
            r.observe(ObjectObserved::Got { metadata: vec![] }),
            ObjectStep::Done(Verdict::Accepted)
        );
        assert_eq!(r.found(), Some(Fence::from_u128(10)));
        let mut r = ObjectRead::new("b", "k");
        r.start();
        r.observe(listed(&[3]));
        let tomb = vec![("Tinystore-Deleted".to_string(), "true".to_string())];
        r.observe(ObjectObserved::Got { metadata: tomb });
        assert_eq!(r.found(), None);
    }

    #[test]
    fn a_get_that_finds_nothing_lists_again_a_bounded_number_of_times() {
        let mut r = ObjectRead::new("b", "k");
        r.start();
        let gone = || {
            ObjectObserved::Failed(DriverFailure {
                http_status: Some(404),
                ..DriverFailure::new("NoSuchKey")
            })
        };
        for _ in 1..MAX_TRIES {
            r.observe(listed(&[4]));
            assert!(matches!(r.observe(gone()), ObjectStep::List { .. }));
        }
        r.observe(listed(&[4]));
        let ObjectStep::Done(Verdict::Refused(err)) = r.observe(gone()) else {
            panic!()
        };
        assert_eq!(err.code(), Code::Limit);
    }
}
