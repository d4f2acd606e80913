//! Watching a key or a group: embedded (embedded.rs) and over a connection
//! (remote.rs), a served watch paused while its reader has no room
//! (paused.rs); on etcd in etcd/watch.rs.

mod embedded;
mod paused;
mod remote;

use futures_util::StreamExt;
use std::time::Duration;
use tinystore::{Watch, WatchEvent};

/// The next event the watch gives (within 10 s).
pub(crate) async fn next(watch: &mut Watch) -> WatchEvent {
    tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .expect("an event within 10 s")
        .expect("the watch goes on")
        .expect("an event, not an error")
}

/// The watch's events, in order, until it has none ready within 200 ms.
pub(crate) async fn drain(watch: &mut Watch) -> Vec<WatchEvent> {
    let mut seen = Vec::new();
    while let Ok(Some(event)) = tokio::time::timeout(Duration::from_millis(200), watch.next()).await
    {
        seen.push(event.expect("an event, not an error"));
    }
    seen
}
