//! The `watch` operation: a connection's watch of a group or one of its
//! keys, whose events its task tells as `watch` events (and the end as
//! `watch_end`); and which of an observer's or a watch's changes is told
//! how.

use super::connection::Connection;
use super::elect::tell_change;
use super::observers::Seen;
use crate::error::{Error, Result};
use crate::vocab::{GroupKind, KeyId};
use crate::watch::WatchEvent;
use crate::wire::{Event, Reply, ServerFrame, WireKey, WireWatch};
use std::sync::Arc;

/// Answers `watch` of the group `name` of `kind` (or of its key `key`),
/// and keeps the watch on the connection, whose task tells each event as a
/// `watch` event naming request `id`.
pub(super) fn watch(
    conn: &Arc<Connection>,
    id: u64,
    kind: &str,
    name: &str,
    key: Option<WireKey>,
) -> Result<()> {
    let kind = group_kind(kind)?;
    let key = key.map(|k| k.text());
    match &key {
        Some(key) => drop(KeyId::new(kind, name, key)?),
        None => crate::names::check_name(name)?,
    }
    let stop = conn.state().add_observer(id)?;
    let watch = match conn.engine.watch(kind, name, key) {
        Ok(watch) => watch,
        Err(err) => {
            conn.state().end_observer(id);
            return Err(err);
        }
    };
    conn.reply(Reply::ok(Some(id)));
    conn.observers().push_watch(id, watch, stop);
    Ok(())
}

/// Answers `watch_pause` (`paused`) or `watch_resume` of the
/// connection's watch `watch` (request `id`).
pub(super) fn pause(conn: &Connection, id: u64, watch: u64, paused: bool) -> Result<()> {
    if !conn.observers().pause(watch, paused) {
        return Err(Error::invalid(format!(
            "this connection has no watch {watch} (it ended, or was never made)"
        )));
    }
    conn.reply(Reply::ok(Some(id)));
    Ok(())
}

/// Tells the client what its observer or watch `id` saw.
pub(super) fn tell_seen(conn: &Connection, id: u64, seen: Seen) {
    match seen {
        Seen::Leader(change) => tell_change(conn, id, change),
        Seen::Watch(event) => tell_event(conn, id, event),
    }
}

/// Tells the client an event of its watch `id`, or the watch's end
/// (`closed`), after which it is forgotten. Nothing is told of a watch the
/// client cancelled.
fn tell_event(conn: &Connection, id: u64, event: Result<WatchEvent>) {
    match event {
        Ok(event) => {
            if conn.state().is_observing(id) {
                conn.send(ServerFrame::Event(Event::Watch(WireWatch::new(id, event))));
            }
        }
        Err(err) => {
            if conn.state().end_observer(id) {
                conn.send(ServerFrame::Event(Event::watch_end(id, &err)));
            }
        }
    }
}

/// The kind a `watch` names: `lock`, `semaphore` or `rwlock`.
fn group_kind(kind: &str) -> Result<GroupKind> {
    match kind {
        "lock" => Ok(GroupKind::Lock),
        "semaphore" => Ok(GroupKind::Semaphore),
        "rwlock" => Ok(GroupKind::RwLock),
        other => Err(Error::invalid(format!(
            "kind must be lock, semaphore or rwlock; got {other:?}"
        ))),
    }
}
