//! Acquiring a key on etcd, first come first served by create revision.
//!
//! Each caller writes an entry into the key's queue, attached to the
//! client's shared etcd lease for its TTL (sessions.rs), with the places it
//! takes (its weight: 1, a weighted permit's, all of a read-write lock's for
//! a writer). It holds the key when its weight and the weights of every
//! entry before it by create revision sum to at most the key's limit (1 for
//! a lock), all or nothing: a heavy entry that does not fit holds back the
//! lighter ones after it, so a waiting writer holds back later readers. A
//! caller that takes every place (a lock, a writer) waits for the one entry
//! ahead of it; any other watches the queue for deletions, the only change
//! that can let it in. At the grant it writes its entry again in a transaction
//! conditioned on the entry's last write being the one it knows: the
//! revision of that write is the fence's count, so counts grow in grant
//! order across the cluster. Whether a lease gets a fence is the request's
//! (a lock's, a writer's, an election's). When the queue is empty, joining and granting
//! are one transaction.
//!
//! Both writes are right when a try whose answer was lost is repeated
//! (call.rs): the join writes the entry only if it is not there yet, and
//! otherwise takes up the one its earlier try wrote; a grant that finds a
//! newer write of its entry takes it as its earlier try's grant. So one
//! acquire writes one entry and is granted once.
//!
//! Giving up (the future dropped, a wait that ran out, `try_acquire` finding
//! the key taken) deletes the caller's entry; a give-up that crosses the
//! grant deletes the granted entry the same way (watch.rs).

use super::call::retry;
use super::epoch;
use super::layout::{entry_value, parse_places};
use super::lease_watch::LeaseWatch;
use super::shared::Inner;
use super::table::KeptLease;
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use crate::vocab::Grant;
use crate::vocab::Request;
use etcd_client::{
    Compare, CompareOp, GetOptions, GetResponse, KeyValue, PutOptions, SortOrder, SortTarget, Txn,
    TxnOp, TxnOpResponse, TxnResponse, WatchFilterType, WatchOptions,
};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// What a look at the queue found.
enum Seen {
    /// The key is granted, at this revision, in this epoch.
    Granted { revision: i64, epoch: u64 },
    /// The first `limit` entries of the queue (every entry that may hold
    /// it: each takes at least one place), as of `revision`.
    Queue { revision: i64, first: Vec<KeyValue> },
}

/// Waits (or, when `waits` is false, does not) until the key is ours.
pub(crate) async fn acquire(
    inner: &Arc<Inner>,
    request: Request,
    waits: bool,
) -> Result<Option<Grant>> {
    inner.check_open()?;
    let (mut place, mut seen) = match join(inner, &request).await {
        // The shared etcd lease ran out just before the entry was written
        // to it: the next try grants another.
        Err(err) if err.code() == Code::LeaseLost => join(inner, &request).await?,
        joined => joined?,
    };
    let from = match &seen {
        Seen::Granted { revision, .. } | Seen::Queue { revision, .. } => revision + 1,
    };
    place.task = Some(place.watch.spawn(inner.client.clone(), from));
    loop {
        let (revision, first) = match seen {
            Seen::Granted { revision, epoch } => {
                return place.hold(&request, revision, epoch).await.map(Some)
            }
            Seen::Queue { revision, first } => (revision, first),
        };
        check_limit(&request, &first)?;
        if fits(&request, &first, &place.watch.entry)? {
            seen = place.grant(&request).await?;
            continue;
        }
        if !waits {
            place.give_up().await;
            return Ok(None);
        }
        if request.weight() == request.limit() {
            // A lock (or a writer) waits for the one entry ahead of it, as
            // etcd's own lock does: a release wakes one waiter, not the
            // whole queue.
            place.wait_for_turn(&request).await?;
            seen = place.grant(&request).await?;
        } else {
            let queue = inner.layout.queue(request.key());
            place.wait_for_deletion(&queue, true, revision + 1).await?;
            seen = place.look(&request).await?;
        }
    }
}

/// Writes a new entry into the queue of the request's key, on the shared
/// etcd lease for its TTL.
async fn join(inner: &Arc<Inner>, request: &Request) -> Result<(Place, Seen)> {
    let session = inner.sessions.take(&inner.client, request.ttl()).await?;
    let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
    let key = request.key();
    let entry = inner.layout.entry(request, session.id, id);
    let leader = key.is_election().then(|| inner.layout.leader(key.name()));
    let watch = LeaseWatch::new(session, key.to_string(), entry, leader);
    let mut place = Place {
        inner: inner.clone(),
        id,
        watch,
        task: None,
        armed: true,
        mine: 0,
        written: 0,
        asked: Instant::now(),
    };
    match place.join(request).await {
        Ok(seen) => Ok((place, seen)),
        Err(err) => {
            if err.code() == Code::LeaseLost {
                // etcd no longer has the shared lease: the entry was not
                // written, and the lease must not be used again.
                place.armed = false;
                place.watch.session.lose(err.clone());
            }
            Err(err)
        }
    }
}

/// A place in a key's queue: its entry is deleted when it is dropped, unless
/// it became a lease.
struct Place {
    inner: Arc<Inner>,
    /// The lease's id in this client.
    id: u64,
    watch: Arc<LeaseWatch>,
    task: Option<AbortHandle>,
    armed: bool,
    /// Our entry's create revision: its place in the queue.
    mine: i64,
    /// The revision of our entry's last write we know of.
    written: i64,
    /// When the last write that may grant it (the join, a grant) was first
    /// sent: its `max_hold` counts from there.
    asked: Instant,
}

impl Place {
    /// Writes our entry; grants at once when the queue was empty. Only if
    /// the entry is not there yet: a repeat after a try whose answer was
    /// lost finds the entry that try wrote, and adopts it (as a grant when
    /// that try granted a campaign; a lock's is granted again, its fence
    /// never given).
    async fn join(&mut self, request: &Request) -> Result<Seen> {
        let layout = &self.inner.layout;
        let queue = layout.queue(request.key());
        let entry = self.watch.entry.as_str();
        let put = TxnOp::put(
            entry,
            entry_value(request),
            Some(PutOptions::new().with_lease(self.watch.session.id)),
        );
        let mut granting = vec![put.clone(), TxnOp::get(layout.epoch(), None)];
        granting.extend(self.leader_put(request));
        let joining = Txn::new()
            .when([Compare::create_revision(queue.as_str(), CompareOp::Equal, 0).with_prefix()])
            .and_then(granting)
            .or_else([
                put,
                TxnOp::get(queue.as_str(), Some(first_of_queue(request.limit()))),
                TxnOp::get(entry, None),
            ]);
        let mut found = vec![
            TxnOp::get(entry, None),
            TxnOp::get(queue.as_str(), Some(first_of_queue(request.limit()))),
            TxnOp::get(layout.epoch(), None),
        ];
        found.extend(self.watch.leader.as_deref().map(|l| TxnOp::get(l, None)));
        let txn = Txn::new()
            .when([Compare::create_revision(entry, CompareOp::Equal, 0)])
            .and_then([TxnOp::txn(joining)])
            .or_else(found);
        let what = format!("joining the queue of {} on etcd", request.key());
        self.asked = Instant::now();
        let reply = self.txn(&what, txn).await?;
        let revision = revision_of(&reply);
        if !reply.succeeded() {
            return self.adopt(revision, gets(&reply));
        }
        let Some(TxnOpResponse::Txn(joined)) = reply.op_responses().into_iter().next() else {
            return Err(Error::internal(format!(
                "{what}: etcd answered without the join"
            )));
        };
        let mut gets = gets(&joined).into_iter();
        if joined.succeeded() {
            let epoch = epoch::from_get(layout, gets.next().as_ref())?;
            return Ok(Seen::Granted { revision, epoch });
        }
        let first = gets.next().map(|mut g| g.take_kvs()).unwrap_or_default();
        let me = gets.next().and_then(|g| g.kvs().first().cloned());
        self.mine = me.as_ref().map_or(revision, |kv| kv.create_revision());
        self.written = me.map_or(revision, |kv| kv.mod_revision());
        Ok(Seen::Queue { revision, first })
    }

    /// Takes up the entry an earlier try of the join wrote, from `found`:
    /// the entry, the first of the queue, the epoch and, for a campaign, the
    /// leader key. That try granted a campaign when the leader key was
    /// written with the entry.
    fn adopt(&mut self, revision: i64, found: Vec<GetResponse>) -> Result<Seen> {
        let mut found = found.into_iter();
        let me = found.next().and_then(|g| g.kvs().first().cloned());
        let first = found.next().map(|mut g| g.take_kvs()).unwrap_or_default();
        let epoch = found.next();
        let leader = found.next().and_then(|g| g.kvs().first().cloned());
        let Some(me) = me else {
            return Err(Error::internal(format!(
                "entry {} on etcd was there and then not, in one transaction",
                self.watch.entry
            )));
        };
        self.mine = me.create_revision();
        self.written = me.mod_revision();
        if leader.is_some_and(|l| l.mod_revision() == me.mod_revision()) {
            let epoch = epoch::from_get(&self.inner.layout, epoch.as_ref())?;
            return Ok(Seen::Granted {
                revision: me.mod_revision(),
                epoch,
            });
        }
        Ok(Seen::Queue { revision, first })
    }

    /// For a campaign, the write that names it the election's leader, in
    /// the grant's transaction (its revision is the term's count) and on
    /// its etcd lease (it goes when the leadership does).
    fn leader_put(&self, request: &Request) -> Option<TxnOp> {
        let key = request.key();
        key.is_election().then(|| {
            TxnOp::put(
                self.inner.layout.leader(key.name()),
                request.value().unwrap_or_default(),
                Some(PutOptions::new().with_lease(self.watch.session.id)),
            )
        })
    }

    /// Reads the first `limit` entries of the queue again.
    async fn look(&self, request: &Request) -> Result<Seen> {
        self.check_still_waiting()?;
        let queue = self.inner.layout.queue(request.key());
        let what = format!("reading the queue of {} on etcd", request.key());
        let client = &self.inner.client;
        let mut reply = retry(client, &what, || {
            let (mut kv, queue) = (client.kv_client(), queue.clone());
            async move { kv.get(queue, Some(first_of_queue(request.limit()))).await }
        })
        .await?;
        let revision = reply.header().map(|h| h.revision()).unwrap_or(0);
        Ok(Seen::Queue {
            revision,
            first: reply.take_kvs(),
        })
    }

    /// Writes our entry again if it still exists: the grant. Only over
    /// the entry's last write we know of: a repeat after a try whose
    /// answer was lost finds that try's write, and takes it as the grant.
    async fn grant(&mut self, request: &Request) -> Result<Seen> {
        self.check_still_waiting()?;
        let entry = self.watch.entry.as_str();
        let layout = &self.inner.layout;
        let mut granting = vec![
            TxnOp::put(
                entry,
                entry_value(request),
                Some(PutOptions::new().with_lease(self.watch.session.id)),
            ),
            TxnOp::get(layout.epoch(), None),
        ];
        granting.extend(self.leader_put(request));
        let txn = Txn::new()
            .when([Compare::mod_revision(entry, CompareOp::Equal, self.written)])
            .and_then(granting)
            .or_else([TxnOp::get(entry, None), TxnOp::get(layout.epoch(), None)]);
        let what = format!("granting {} on etcd", self.watch.what);
        self.asked = Instant::now();
        let reply = self.txn(&what, txn).await?;
        let mut gets = gets(&reply).into_iter();
        if reply.succeeded() {
            let epoch = epoch::from_get(layout, gets.next().as_ref())?;
            return Ok(Seen::Granted {
                revision: revision_of(&reply),
                epoch,
            });
        }
        let me = gets.next().and_then(|g| g.kvs().first().cloned());
        match me {
            // Written over since, by an earlier try of this grant.
            Some(me) if me.create_revision() == self.mine && me.mod_revision() > self.written => {
                let epoch = epoch::from_get(layout, gets.next().as_ref())?;
                Ok(Seen::Granted {
                    revision: me.mod_revision(),
                    epoch,
                })
            }
            _ => Err(self.watch.lost().unwrap_or_else(|| {
                Error::lease_lost(format!(
                    "the wait for {} ended: its entry {} vanished from etcd before the grant \
                     (its etcd lease ran out)",
                    self.watch.what, self.watch.entry
                ))
            })),
        }
    }

    /// Waits until no entry is ahead of ours in a lock's queue.
    async fn wait_for_turn(&self, request: &Request) -> Result<()> {
        let queue = self.inner.layout.queue(request.key());
        let what = format!("reading the queue of {} on etcd", request.key());
        let client = &self.inner.client;
        let options = GetOptions::new()
            .with_prefix()
            .with_keys_only()
            .with_max_create_revision(self.mine - 1)
            .with_sort(SortTarget::Create, SortOrder::Descend)
            .with_limit(1);
        loop {
            self.check_still_waiting()?;
            let ahead = retry(client, &what, || {
                let (mut kv, queue, options) = (client.kv_client(), queue.clone(), options.clone());
                async move { kv.get(queue, Some(options)).await }
            })
            .await?;
            let Some(next) = ahead.kvs().first() else {
                return Ok(());
            };
            let from = ahead.header().map_or(0, |h| h.revision()) + 1;
            let next = String::from_utf8_lossy(next.key()).into_owned();
            self.wait_for_deletion(&next, false, from).await?;
        }
    }

    /// Waits until `target` (or an entry under it, with `prefix`) is deleted
    /// after revision `from`, our lease is lost, or the store closes.
    async fn wait_for_deletion(&self, target: &str, prefix: bool, from: i64) -> Result<()> {
        let queue = target.to_string();
        let mut options = WatchOptions::new()
            .with_start_revision(from)
            .with_filters([WatchFilterType::NoPut]);
        if prefix {
            options = options.with_prefix();
        }
        let what = format!("watching {target} on etcd for {}", self.watch.what);
        let client = &self.inner.client;
        let member = client.current();
        let mut stream = retry(client, &what, || {
            let (mut watch, queue, options) =
                (client.watch_client(), queue.clone(), options.clone());
            async move { watch.watch(queue, Some(options)).await }
        })
        .await?;
        let lost = self.watch.signal();
        let mut closed = self.inner.closed.subscribe();
        loop {
            self.check_still_waiting()?;
            tokio::select! {
                message = stream.message() => match message {
                    Ok(Some(reply)) if reply.events().is_empty() && !reply.canceled() => continue,
                    Ok(Some(_)) => return Ok(()),
                    // The watch broke: look at the queue again.
                    Ok(None) | Err(_) => {
                        client.failed(member);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        return Ok(());
                    }
                },
                _ = lost.ended() => {}
                _ = closed.changed() => {}
            }
        }
    }

    fn check_still_waiting(&self) -> Result<()> {
        self.inner.check_open()?;
        match self.watch.lost() {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    async fn txn(&self, what: &str, txn: Txn) -> Result<TxnResponse> {
        let client = &self.inner.client;
        retry(client, what, || {
            let (mut kv, txn) = (client.kv_client(), txn.clone());
            async move { kv.txn(txn).await }
        })
        .await
    }

    /// Turns the place into a held lease.
    async fn hold(mut self, request: &Request, revision: i64, epoch: u64) -> Result<Grant> {
        let watch = self.watch.clone();
        watch.granted(revision, request.renewing(), request.max_hold(), self.asked);
        let task = match self.task.take() {
            Some(task) => task,
            None => watch.spawn(self.inner.client.clone(), revision + 1),
        };
        let id = self.id;
        let fence = request.fenced().then(|| Fence::new(epoch, revision as u64));
        let lost = watch.signal();
        self.inner.table.insert(
            id,
            KeptLease {
                watch: watch.clone(),
                task,
            },
        );
        // The table owns the lease now; nothing is left to revoke on drop.
        self.armed = false;
        Ok(Grant { id, fence, lost })
    }

    /// Leaves the queue now.
    async fn give_up(mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        let _ = self.watch.delete(&self.inner.client).await;
        // Dropped before this line, the place deletes again from `Drop`.
        self.armed = false;
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        if !self.armed {
            return;
        }
        let (client, watch) = (self.inner.client.clone(), self.watch.clone());
        self.inner.runtime.spawn(async move {
            let _ = watch.delete(&client).await;
        });
    }
}

/// A semaphore's limit belongs to the key while it has holders: the first
/// entry's limit is the key's.
fn check_limit(request: &Request, first: &[KeyValue]) -> Result<()> {
    let Some(oldest) = first.first().filter(|_| !request.key().is_election()) else {
        return Ok(());
    };
    match places(oldest)? {
        (limit, _) if limit == request.limit() => Ok(()),
        (limit, _) => Err(Error::invalid(format!(
            "{} has limit {limit} while it has holders; it was asked with limit {}",
            request.key(),
            request.limit()
        ))),
    }
}

/// Whether `entry` holds the key: its weight and those of every entry
/// before it in `first` (the queue's first entries, in create order) sum
/// to at most the limit. False when it is not among them. Every entry of
/// an election's queue takes its one place.
fn fits(request: &Request, first: &[KeyValue], entry: &str) -> Result<bool> {
    let mut used = 0u64;
    for kv in first {
        let weight = if request.key().is_election() {
            1
        } else {
            places(kv)?.1
        };
        used += u64::from(weight);
        if used > u64::from(request.limit()) {
            return Ok(false);
        }
        if kv.key() == entry.as_bytes() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The limit and weight an entry of a lock's, semaphore's or read-write
/// lock's queue says; `corrupt` when its value says neither.
fn places(kv: &KeyValue) -> Result<(u32, u32)> {
    parse_places(kv.value()).ok_or_else(|| {
        Error::new(
            crate::error::Code::Corrupt,
            format!(
                "entry {} on etcd holds {:?}, not a limit and weight",
                String::from_utf8_lossy(kv.key()),
                String::from_utf8_lossy(kv.value())
            ),
        )
    })
}

fn first_of_queue(limit: u32) -> GetOptions {
    GetOptions::new()
        .with_prefix()
        .with_sort(SortTarget::Create, SortOrder::Ascend)
        .with_limit(i64::from(limit))
}

fn revision_of(reply: &TxnResponse) -> i64 {
    reply.header().map(|h| h.revision()).unwrap_or(0)
}

fn gets(reply: &TxnResponse) -> Vec<GetResponse> {
    reply
        .op_responses()
        .into_iter()
        .filter_map(|r| match r {
            TxnOpResponse::Get(get) => Some(get),
            _ => None,
        })
        .collect()
}
