//! A watch of a directory on etcd that resumes where it broke: when its
//! stream ends or fails (its member died, or lost the cluster), it opens
//! again on the next member from the revision after the last it read, so
//! nothing is missed or told twice. It ends when etcd has compacted past
//! that revision, when the store closes, or when what it feeds is gone.
//! Election observers (elect.rs) and watches (watch.rs) read it.

use super::call::retry;
use super::shared::Inner;
use crate::error::{Error, Result};
use etcd_client::{Event, WatchOptions};
use std::time::Duration;

/// What a resuming watch feeds.
pub(super) trait Feed {
    /// Takes the events of one reply, in revision order; false when what
    /// it feeds is gone (or was ended), and the watch stops.
    async fn take(&mut self, events: &[Event]) -> bool;

    /// The error that ends it when etcd has compacted past the revision it
    /// would resume from (`compacted` is etcd's oldest revision now).
    fn behind(&self, compacted: i64) -> Error;

    /// Ends what it feeds with `err`.
    fn end(&mut self, err: Error);
}

/// Watches `directory` (a prefix) from revision `from` on, feeding `feed`
/// until one of the ends above; `what` names it in errors.
pub(super) async fn resume<F: Feed>(
    inner: &Inner,
    directory: &str,
    what: &str,
    mut from: i64,
    feed: &mut F,
) {
    let mut closed = inner.closed.subscribe();
    let end = loop {
        let member = inner.client.current();
        let mut stream = match open(inner, directory, what, from).await {
            Ok(stream) => stream,
            Err(err) => break err,
        };
        loop {
            tokio::select! {
                message = stream.message() => match message {
                    Ok(Some(reply)) if reply.canceled() => {
                        if reply.compact_revision() > 0 {
                            return feed.end(feed.behind(reply.compact_revision()));
                        }
                        break;
                    }
                    Ok(Some(reply)) => {
                        if !feed.take(reply.events()).await {
                            return;
                        }
                        if let Some(last) = reply.events().iter().filter_map(|e| e.kv()).next_back() {
                            from = last.mod_revision() + 1;
                        }
                    }
                    // The watch broke: open it again, on the next member,
                    // from where it was.
                    Ok(None) | Err(_) => {
                        inner.client.failed(member);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        break;
                    }
                },
                _ = closed.changed() => {
                    let err = inner
                        .check_open()
                        .err()
                        .unwrap_or_else(|| Error::store_closed(&inner.address));
                    return feed.end(err);
                }
            }
        }
    };
    feed.end(end);
}

async fn open(
    inner: &Inner,
    directory: &str,
    what: &str,
    from: i64,
) -> Result<etcd_client::WatchStream> {
    inner.check_open()?;
    let client = &inner.client;
    let options = WatchOptions::new().with_prefix().with_start_revision(from);
    retry(client, what, || {
        let (mut watch, dir, options) = (
            client.watch_client(),
            directory.to_string(),
            options.clone(),
        );
        async move { watch.watch(dir, Some(options)).await }
    })
    .await
}
