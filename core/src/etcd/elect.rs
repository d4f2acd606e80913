//! Elections on etcd: a campaign is an acquire of the election's queue
//! (acquire.rs), whose grant also writes the leader key (layout.rs); here,
//! who leads, and observers fed by a watch of the election's directory.
//!
//! An observer's state after each revision: the leader key's value and
//! term when it exists; nobody when the queue is empty too; otherwise a
//! hand-over is under way (a leader resigned or ran out and the next in
//! queue has yet to write its grant), and nothing is told until it settles,
//! so a hand-over is one change, from one leader straight to the next. A
//! watch resumes from the last revision it saw when it breaks, so nothing
//! is missed or told twice; when etcd has compacted past it, the observer
//! ends with `unavailable`.

use super::call::retry;
use super::epoch;
use super::resume::{resume, Feed};
use super::shared::Inner;
use crate::election::pushed::{self, Route, Told};
use crate::election::{Leader, Observer};
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use etcd_client::{EventType, GetOptions, KeyValue, Txn, TxnOp, TxnOpResponse};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The leader of election `name` now, or `None`.
pub(crate) async fn leader(inner: &Inner, name: &str) -> Result<Option<Leader>> {
    inner.check_open()?;
    let (_, mut gets) = snapshot(inner, &inner.layout.leader(name), None).await?;
    let epoch = epoch::from_get(&inner.layout, gets.pop().as_ref())?;
    let leader = gets.pop().and_then(|mut g| g.take_kvs().into_iter().next());
    Ok(leader.map(|kv| as_leader(&kv, epoch)))
}

/// Every change of the leader of election `name`, from its leader now.
pub(crate) async fn observe(inner: &Arc<Inner>, name: &str) -> Result<Observer> {
    inner.check_open()?;
    let layout = &inner.layout;
    let directory = layout.election(name);
    let everything = GetOptions::new().with_prefix();
    let (revision, mut gets) = snapshot(inner, &directory, Some(everything)).await?;
    let epoch = epoch::from_get(layout, gets.pop().as_ref())?;
    let mut state = State {
        leader_key: layout.leader(name).into_bytes(),
        ..State::default()
    };
    for kv in gets.pop().map(|mut g| g.take_kvs()).unwrap_or_default() {
        state.put(&kv);
    }
    let first = state.leader.as_ref().map(|kv| as_leader(kv, epoch));
    let (route, inbox) = pushed::route();
    let watching = Watching {
        inner: inner.clone(),
        name: name.into(),
        directory,
        state,
        shown: first.clone(),
        route,
    };
    let task = inner.runtime.spawn(watching.run(revision + 1));
    Ok(pushed::observer(name, first, inbox, move || task.abort()))
}

/// One read at one revision of `key` (with `options`) and of the epoch: the
/// revision, and the two answers in that order.
async fn snapshot(
    inner: &Inner,
    key: &str,
    options: Option<GetOptions>,
) -> Result<(i64, Vec<etcd_client::GetResponse>)> {
    let client = &inner.client;
    let txn = Txn::new().and_then([
        TxnOp::get(key, options),
        TxnOp::get(inner.layout.epoch(), None),
    ]);
    let what = format!("reading {key} on etcd");
    let reply = retry(client, &what, || {
        let (mut kv, txn) = (client.kv_client(), txn.clone());
        async move { kv.txn(txn).await }
    })
    .await?;
    let revision = reply.header().map_or(0, |h| h.revision());
    let gets = reply
        .op_responses()
        .into_iter()
        .filter_map(|r| match r {
            TxnOpResponse::Get(get) => Some(get),
            _ => None,
        })
        .collect();
    Ok((revision, gets))
}

/// The leader a leader key names: its value, and its term (the epoch and
/// the revision of the grant that wrote it).
fn as_leader(kv: &KeyValue, epoch: u64) -> Leader {
    Leader {
        value: String::from_utf8_lossy(kv.value()).into_owned(),
        fence: Fence::new(epoch, kv.mod_revision() as u64),
    }
}

/// What an observer knows of an election's directory.
#[derive(Default)]
struct State {
    leader_key: Vec<u8>,
    /// The leader key, while it exists.
    leader: Option<KeyValue>,
    /// The entries of the queue.
    queue: BTreeSet<Vec<u8>>,
}

impl State {
    fn put(&mut self, kv: &KeyValue) {
        if kv.key() == self.leader_key.as_slice() {
            self.leader = Some(kv.clone());
        } else {
            self.queue.insert(kv.key().to_vec());
        }
    }

    fn delete(&mut self, kv: &KeyValue) {
        if kv.key() == self.leader_key.as_slice() {
            self.leader = None;
        } else {
            self.queue.remove(kv.key());
        }
    }

    /// Whether who leads is settled: a leader, or nobody and nobody in
    /// queue (not a hand-over under way).
    fn settled(&self) -> bool {
        self.leader.is_some() || self.queue.is_empty()
    }
}

/// An observer's task: watches the election's directory and tells each
/// settled change of leader.
struct Watching {
    inner: Arc<Inner>,
    name: Arc<str>,
    directory: String,
    state: State,
    shown: Option<Leader>,
    route: Route,
}

impl Watching {
    async fn run(mut self, from: i64) {
        let inner = self.inner.clone();
        let what = format!("watching election {} on etcd", self.name);
        let directory = self.directory.clone();
        resume(&inner, &directory, &what, from, &mut self).await;
    }

    /// Applies `events`, a revision at a time, telling each settled change.
    async fn apply(&mut self, events: &[etcd_client::Event]) -> Result<(), Stop> {
        for (n, event) in events.iter().enumerate() {
            let Some(kv) = event.kv() else { continue };
            match event.event_type() {
                EventType::Put => self.state.put(kv),
                EventType::Delete => self.state.delete(kv),
            }
            let revision = kv.mod_revision();
            let revision_ends = events
                .get(n + 1)
                .and_then(|e| e.kv())
                .is_none_or(|next| next.mod_revision() != revision);
            if revision_ends && self.state.settled() {
                self.tell(revision).await?;
            }
        }
        Ok(())
    }

    /// Tells the leader as of `revision` if it changed.
    async fn tell(&mut self, revision: i64) -> Result<(), Stop> {
        let now = match self.state.leader.clone() {
            Some(kv) => match self.epoch_at(revision).await {
                Ok(epoch) => Some(as_leader(&kv, epoch)),
                Err(err) => {
                    self.route.end(err);
                    return Err(Stop);
                }
            },
            None => None,
        };
        if now == self.shown {
            return Ok(());
        }
        self.shown = now.clone();
        match self.route.tell(&self.name, now) {
            Told::Taken => Ok(()),
            Told::Overflowed | Told::Dropped => Err(Stop),
        }
    }

    /// The epoch as of `revision` (the one the grant at `revision` read);
    /// the epoch now if etcd no longer has that revision.
    async fn epoch_at(&self, revision: i64) -> Result<u64> {
        let client = &self.inner.client;
        let layout = &self.inner.layout;
        let what = format!("reading the epoch of election {} on etcd", self.name);
        let mut last = None;
        for options in [Some(GetOptions::new().with_revision(revision)), None] {
            let got = retry(client, &what, || {
                let (mut kv, key, options) = (client.kv_client(), layout.epoch(), options.clone());
                async move { kv.get(key, options).await }
            })
            .await;
            match got.and_then(|g| epoch::from_get(layout, Some(&g))) {
                Ok(epoch) => return Ok(epoch),
                Err(err) => last = Some(err),
            }
        }
        Err(last.unwrap_or_else(|| Error::internal(what)))
    }
}

impl Feed for Watching {
    async fn take(&mut self, events: &[etcd_client::Event]) -> bool {
        self.apply(events).await.is_ok()
    }

    fn behind(&self, compacted: i64) -> Error {
        Error::new(
            Code::Unavailable,
            format!(
                "the observer of election {} fell behind etcd's compaction (revision \
                 {compacted}); observe again",
                self.name
            ),
        )
    }

    fn end(&mut self, err: Error) {
        self.route.end(err);
    }
}

/// The observer is gone, or was ended: its task stops.
struct Stop;
