//! The election operations a connection may ask for besides a campaign
//! (which ops.rs queues as it queues an acquire): `leader` and `observe`,
//! and the changes an observer is told.

use super::connection::Connection;
use crate::error::{Error, Result};
use crate::poll::poll_now;
use crate::wire::{Event, Reply, ServerFrame};
use futures_util::StreamExt;
use std::sync::Arc;
use std::task::Poll;

/// Answers `leader`: the leader of election `name` now, or `null`.
pub(super) fn leader(conn: &Connection, id: u64, name: &str) -> Result<()> {
    let leader = conn.engine.leader(name)?;
    conn.reply(Reply {
        leader: Some(leader.map(Into::into)),
        ..Reply::ok(Some(id))
    });
    Ok(())
}

/// Answers `observe` with the leader of election `name` now, and keeps the
/// observer on the connection, whose task then tells each change as a
/// `leader` event naming request `id`.
pub(super) fn observe(conn: &Arc<Connection>, id: u64, name: &str) -> Result<()> {
    let stop = conn.state().add_observer(id)?;
    let mut observer = match conn.engine.observe(name) {
        Ok(observer) => observer,
        Err(err) => {
            conn.state().end_observer(id);
            return Err(err);
        }
    };
    // An observer's first item is the leader at the moment it subscribed,
    // ready at once; the reply carries it, and so comes before any change.
    let first = match poll_now(std::pin::pin!(observer.next())) {
        Poll::Ready(Some(Ok(first))) => first,
        Poll::Ready(Some(Err(err))) => {
            conn.state().end_observer(id);
            return Err(err);
        }
        Poll::Ready(None) | Poll::Pending => {
            conn.state().end_observer(id);
            return Err(Error::internal(format!(
                "the observer of election {name} gave no first leader"
            )));
        }
    };
    conn.reply(Reply {
        leader: Some(first.map(Into::into)),
        ..Reply::ok(Some(id))
    });
    conn.observers().push(id, observer, stop);
    Ok(())
}

/// Tells the client a change seen by its observer `id`: a new leader, or
/// the observer's end (`closed`, `limit`), after which it is forgotten.
/// Nothing is told of an observer the client cancelled.
pub(super) fn tell_change(conn: &Connection, id: u64, change: Result<Option<crate::Leader>>) {
    match change {
        Ok(leader) => {
            if conn.state().is_observing(id) {
                conn.send(ServerFrame::Event(Event::leader(id, leader)));
            }
        }
        Err(err) => {
            if conn.state().end_observer(id) {
                conn.send(ServerFrame::Event(Event::observe_end(id, &err)));
            }
        }
    }
}
