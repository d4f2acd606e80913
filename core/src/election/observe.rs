//! `Observer`: every change of an election's leader, in order, as a
//! [`Stream`]. Pushed, never polled: the engine sends each change to its
//! observers as it settles it.
//!
//! The policy for a slow observer: changes wait for it in a buffer of
//! [`OBSERVE_BUFFER`] per election. An observer that falls further behind
//! than that is not silently skipped ahead: it gets one error, `limit`,
//! and ends. Observing again starts from the leader of that moment.

use super::leader::Leader;
use crate::error::{Code, Error, Result};
use futures_util::stream::{BoxStream, Stream, StreamExt};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::broadcast;

/// How many changes of leader wait for an observer that has not taken them;
/// one that falls further behind ends with `limit`.
pub const OBSERVE_BUFFER: usize = 1024;

/// What the engine sends to an election's observers.
#[derive(Debug, Clone)]
pub(crate) enum Event {
    /// The leader changed: to this one, or to none.
    Leader(Option<Leader>),
    /// The store closed: every observer ends with this error.
    Closed(Error),
}

/// The changes of one election's leader: first the leader at the moment of
/// observing (or `None`), then every change, in order, with no gap and no
/// repeat, `None` when nobody leads. It ends after an error: `closed` when
/// the store closes, `limit` when the observer fell more than
/// [`OBSERVE_BUFFER`] changes behind, `unavailable` when what brought its
/// changes broke (a store's connection to its server; on etcd, a watch
/// compacted past). Dropping it stops observing.
pub struct Observer {
    name: Arc<str>,
    changes: BoxStream<'static, Result<Option<Leader>>>,
}

/// Where an embedded observer is.
enum Step {
    First(Option<Leader>, broadcast::Receiver<Event>),
    Next(broadcast::Receiver<Event>),
    Done,
}

impl Observer {
    /// An observer of `name` whose changes come from `changes` (a backend
    /// that receives them from elsewhere builds one so).
    pub(crate) fn from_stream(
        name: &str,
        changes: impl Stream<Item = Result<Option<Leader>>> + Send + 'static,
    ) -> Observer {
        Observer {
            name: name.into(),
            changes: changes.boxed(),
        }
    }

    /// An observer of the engine's election `name`, whose leader was
    /// `first` when `events` subscribed.
    pub(crate) fn embedded(
        name: &str,
        first: Option<Leader>,
        events: broadcast::Receiver<Event>,
    ) -> Observer {
        let what: Arc<str> = name.into();
        let changes = futures_util::stream::unfold(Step::First(first, events), move |step| {
            let what = what.clone();
            async move {
                match step {
                    Step::First(first, events) => Some((Ok(first), Step::Next(events))),
                    Step::Next(mut events) => {
                        let item = match events.recv().await {
                            Ok(Event::Leader(leader)) => {
                                return Some((Ok(leader), Step::Next(events)))
                            }
                            Ok(Event::Closed(reason)) => reason,
                            Err(broadcast::error::RecvError::Lagged(missed)) => Error::new(
                                Code::Limit,
                                format!(
                                    "an observer of election {what} fell more than \
                                     {OBSERVE_BUFFER} changes of leader behind ({missed} not \
                                     taken in time) and was ended; observe again to start \
                                     from the leader of now"
                                ),
                            ),
                            Err(broadcast::error::RecvError::Closed) => {
                                Error::closed(format!("the store of election {what} went away"))
                            }
                        };
                        Some((Err(item), Step::Done))
                    }
                    Step::Done => None,
                }
            }
        });
        Observer::from_stream(name, changes)
    }

    /// The election's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Stream for Observer {
    type Item = Result<Option<Leader>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.changes.poll_next_unpin(cx)
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("election", &self.name)
            .finish_non_exhaustive()
    }
}
