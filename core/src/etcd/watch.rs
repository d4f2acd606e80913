//! Watching a group (or one of its keys) on etcd: an etcd watch of its
//! queues' directory, read as the engine tells its watchers.
//!
//! Entries (layout.rs) are written at the join and again at the grant
//! (acquire.rs); joining an empty queue grants in the same write. So, in
//! revision order: an entry created in an empty queue is a grant; one
//! created behind others joins the queue; a later write of a waiting entry
//! is its grant, whose revision is its fence's count; the deletion of a
//! granted entry is its end, of a waiting one a wait given up. etcd's watch
//! does not say whether an entry was deleted by its holder or by its etcd
//! lease running out, so every end is told as `released`.
//!
//! The watch resumes from the last revision it saw when it breaks, so
//! nothing is missed or told twice; when etcd has compacted past it, the
//! watch ends with `unavailable`.

use super::call::retry;
use super::epoch;
use super::layout::{entry_data, parse_places};
use super::resume::{resume, Feed};
use super::shared::Inner;
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::vocab::{GroupKind, KeyId};
use crate::watch::{buffer, Sink, Watch, WatchEvent};
use etcd_client::TxnOpResponse;
use etcd_client::{EventType, GetOptions, KeyValue, SortOrder, SortTarget, Txn, TxnOp};
use std::collections::HashMap;
use std::sync::Arc;

/// Every grant, end and change of queue length from now on in the group
/// `name` of `kind`, on its key `key` or on every key.
pub(crate) async fn watch(
    inner: &Arc<Inner>,
    kind: GroupKind,
    name: &str,
    key: Option<String>,
) -> Result<Watch> {
    let directory = match &key {
        Some(key) => inner.layout.queue(&KeyId::new(kind, name, key)?),
        None => format!("{}{name}/", inner.layout.queues(kind)),
    };
    let (revision, entries, epoch) = snapshot(inner, &directory).await?;
    let mut state = State {
        kind,
        epoch,
        keys: HashMap::new(),
    };
    for kv in &entries {
        state.seed(inner, kv);
    }
    let (sink, watch) = buffer(|| {});
    let watching = Watching {
        inner: inner.clone(),
        directory,
        state,
        sink,
    };
    let task = inner.runtime.spawn(watching.run(revision + 1));
    Ok(attach(watch, task))
}

/// The watch, whose task is aborted when it is dropped (it would stop at
/// its next event anyway, finding the reader gone).
fn attach(watch: Watch, task: tokio::task::JoinHandle<()>) -> Watch {
    let guard = AbortOnDrop(task);
    Watch::from_stream(futures_util::stream::unfold(
        (watch, guard),
        |(mut watch, guard)| async move {
            let item = watch.next_event().await?;
            Some((item, (watch, guard)))
        },
    ))
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The entries under `directory` in create order, the revision they were
/// read at, and the epoch.
async fn snapshot(inner: &Inner, directory: &str) -> Result<(i64, Vec<KeyValue>, u64)> {
    let client = &inner.client;
    let options = GetOptions::new()
        .with_prefix()
        .with_sort(SortTarget::Create, SortOrder::Ascend);
    let txn = Txn::new().and_then([
        TxnOp::get(directory, Some(options)),
        TxnOp::get(inner.layout.epoch(), None),
    ]);
    let what = format!("reading {directory} on etcd");
    let reply = retry(client, &what, || {
        let (mut kv, txn) = (client.kv_client(), txn.clone());
        async move { kv.txn(txn).await }
    })
    .await?;
    let revision = reply.header().map_or(0, |h| h.revision());
    let mut gets = reply.op_responses().into_iter().filter_map(|r| match r {
        TxnOpResponse::Get(get) => Some(get),
        _ => None,
    });
    let entries = gets.next().map(|mut g| g.take_kvs()).unwrap_or_default();
    let epoch = epoch::from_get(&inner.layout, gets.next().as_ref())?;
    Ok((revision, entries, epoch))
}

/// One entry of a key's queue, as the watch knows it.
struct Entry {
    /// Whether it holds the key.
    granted: bool,
    /// The fence of its grant, for a lock's lease or a write lease.
    fence: Option<Fence>,
}

/// What the watch knows of the queues it watches: per key, its entries by
/// their etcd key.
struct State {
    kind: GroupKind,
    epoch: u64,
    keys: HashMap<String, HashMap<Vec<u8>, Entry>>,
}

impl State {
    /// Takes in an entry that was there when the watch began, as status
    /// reads it: held when it was written again since its join, or when it
    /// is the first of its queue.
    fn seed(&mut self, inner: &Inner, kv: &KeyValue) {
        let Some((_, key, _)) = inner.layout.parse_entry(self.kind, kv.key()) else {
            return;
        };
        let fence = self.fence(kv);
        let entries = self.keys.entry(key).or_default();
        let granted = kv.mod_revision() > kv.create_revision() || entries.is_empty();
        let fence = granted.then_some(fence).flatten();
        entries.insert(kv.key().to_vec(), Entry { granted, fence });
    }

    /// The fence a grant written in `kv` gives: a lock's, a writer's.
    fn fence(&self, kv: &KeyValue) -> Option<Fence> {
        let (limit, weight) = parse_places(kv.value()).unwrap_or((1, 1));
        let fenced = match self.kind {
            GroupKind::Lock => true,
            GroupKind::RwLock => weight == limit,
            GroupKind::Semaphore | GroupKind::Election => false,
        };
        fenced.then(|| Fence::new(self.epoch, kv.mod_revision() as u64))
    }

    /// The events a write of `kv` makes.
    fn put(&mut self, inner: &Inner, kv: &KeyValue, out: &mut Vec<WatchEvent>) {
        let Some((_, key, _)) = inner.layout.parse_entry(self.kind, kv.key()) else {
            return;
        };
        let fence = self.fence(kv);
        let entries = self.keys.entry(key.clone()).or_default();
        let joined = kv.mod_revision() == kv.create_revision();
        let grant = match entries.get_mut(kv.key()) {
            // A write of a held entry again (a grant repeated): nothing new.
            Some(entry) if entry.granted => false,
            Some(entry) => {
                entry.granted = true;
                entry.fence = fence;
                true
            }
            None => {
                let granted = !joined || entries.is_empty();
                let fence = granted.then_some(fence).flatten();
                entries.insert(kv.key().to_vec(), Entry { granted, fence });
                granted
            }
        };
        let waiting = entries.values().filter(|e| !e.granted).count() as u64;
        if grant {
            out.push(WatchEvent::Granted {
                key: key.clone(),
                fence,
                data: entry_data(kv.value()),
            });
        }
        if !grant || !joined {
            out.push(WatchEvent::Queue {
                key,
                length: waiting,
            });
        }
    }

    /// The events the deletion of `kv` makes.
    fn delete(&mut self, inner: &Inner, kv: &KeyValue, out: &mut Vec<WatchEvent>) {
        let Some((_, key, _)) = inner.layout.parse_entry(self.kind, kv.key()) else {
            return;
        };
        let Some(entries) = self.keys.get_mut(&key) else {
            return;
        };
        let Some(entry) = entries.remove(kv.key()) else {
            return;
        };
        let waiting = entries.values().filter(|e| !e.granted).count() as u64;
        if entries.is_empty() {
            self.keys.remove(&key);
        }
        if entry.granted {
            out.push(WatchEvent::Released {
                key,
                fence: entry.fence,
            });
        } else {
            out.push(WatchEvent::Queue {
                key,
                length: waiting,
            });
        }
    }
}

/// A watch's task: watches the directory and tells each event.
struct Watching {
    inner: Arc<Inner>,
    directory: String,
    state: State,
    sink: Sink,
}

impl Watching {
    async fn run(mut self, from: i64) {
        let inner = self.inner.clone();
        let what = format!("watching {} on etcd", self.directory);
        let directory = self.directory.clone();
        resume(&inner, &directory, &what, from, &mut self).await;
    }
}

impl Feed for Watching {
    async fn take(&mut self, events: &[etcd_client::Event]) -> bool {
        let mut out = Vec::new();
        for event in events {
            let Some(kv) = event.kv() else { continue };
            match event.event_type() {
                EventType::Put => self.state.put(&self.inner, kv, &mut out),
                EventType::Delete => self.state.delete(&self.inner, kv, &mut out),
            }
        }
        out.into_iter().all(|event| self.sink.push(event))
    }

    fn behind(&self, compacted: i64) -> Error {
        Error::new(
            Code::Unavailable,
            format!(
                "the watch of {} fell behind etcd's compaction (revision {compacted}); watch again",
                self.directory
            ),
        )
    }

    fn end(&mut self, err: Error) {
        self.sink.end(err);
    }
}
