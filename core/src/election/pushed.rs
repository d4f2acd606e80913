//! Observers whose changes are pushed from elsewhere: by a server over a
//! connection (client/link.rs hands each `leader` event to its observer's
//! [`Route`]), or by an etcd watch. The caller reads them from an
//! [`Observer`] made by [`observer`].
//!
//! The same rule as an embedded observer's for one that is slow: changes
//! wait for it in a buffer of [`OBSERVE_BUFFER`]; one that falls further
//! behind gets every change it had room for, then the error `limit`, and
//! ends. Never a gap, never a repeat: when what pushes the changes breaks
//! (a connection, a watch), the observer ends with its error rather than
//! going on from elsewhere; a new one starts from the leader of that moment.

use super::leader::Leader;
use super::observe::{Observer, OBSERVE_BUFFER};
use crate::error::{Code, Error};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Why an observer ended, once it did; read after its last change.
type EndSlot = Arc<Mutex<Option<Error>>>;

/// Where the link's reader puts the changes of one observer.
pub(crate) struct Route {
    tx: mpsc::Sender<Option<Leader>>,
    end: EndSlot,
}

/// What became of a change handed to a [`Route`].
pub(crate) enum Told {
    /// The observer will see it.
    Taken,
    /// The observer's buffer is full: it was ended with `limit`.
    Overflowed,
    /// Nobody reads the observer any more.
    Dropped,
}

impl Route {
    /// Hands `leader` to the observer; see [`Told`].
    pub(crate) fn tell(&self, name: &str, leader: Option<Leader>) -> Told {
        match self.tx.try_send(leader) {
            Ok(()) => Told::Taken,
            Err(mpsc::error::TrySendError::Closed(_)) => Told::Dropped,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.end(Error::new(
                    Code::Limit,
                    format!(
                        "an observer of election {name} fell more than {OBSERVE_BUFFER} changes \
                         of leader behind and was ended; observe again to start from the \
                         leader of now"
                    ),
                ));
                Told::Overflowed
            }
        }
    }

    /// Ends the observer with `reason` after the changes it has.
    pub(crate) fn end(&self, reason: Error) {
        let mut end = self.end.lock().unwrap_or_else(|p| p.into_inner());
        end.get_or_insert(reason);
    }
}

/// The receiving end of a [`Route`].
pub(crate) struct Inbox {
    rx: mpsc::Receiver<Option<Leader>>,
    end: EndSlot,
}

/// A new route and its inbox.
pub(crate) fn route() -> (Route, Inbox) {
    let (tx, rx) = mpsc::channel(OBSERVE_BUFFER);
    let end = EndSlot::default();
    (
        Route {
            tx,
            end: end.clone(),
        },
        Inbox { rx, end },
    )
}

/// Runs a function when dropped: how an observer stops what pushes to it.
struct OnDrop(Option<Box<dyn FnOnce() + Send>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            stop();
        }
    }
}

/// The observer of election `name` whose leader was `first` when the
/// server answered, and whose changes come to `inbox`; dropping it calls
/// `stop`.
pub(crate) fn observer(
    name: &str,
    first: Option<Leader>,
    inbox: Inbox,
    stop: impl FnOnce() + Send + 'static,
) -> Observer {
    let what: Arc<str> = name.into();
    let guard = OnDrop(Some(Box::new(stop)));
    let start = (Some(first), Some(inbox), guard);
    let changes = futures_util::stream::unfold(start, move |(first, inbox, guard)| {
        let what = what.clone();
        async move {
            if let Some(first) = first {
                return Some((Ok(first), (None, inbox, guard)));
            }
            let mut inbox = inbox?;
            if let Some(leader) = inbox.rx.recv().await {
                return Some((Ok(leader), (None, Some(inbox), guard)));
            }
            let end = inbox.end.lock().unwrap_or_else(|p| p.into_inner()).take();
            let reason = end.unwrap_or_else(|| {
                Error::new(
                    Code::Unavailable,
                    format!("what told the observer of election {what} its changes went away"),
                )
            });
            Some((Err(reason), (None, None, guard)))
        }
    });
    Observer::from_stream(name, changes)
}
