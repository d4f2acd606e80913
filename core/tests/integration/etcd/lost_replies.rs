//! Calls whose request reaches etcd but whose reply is lost: the client
//! reaches its first member through a proxy (crate::etcd::support::lost_reply) that
//! forwards one request, holds its reply until the test has seen the
//! request take effect on etcd, then cuts the connection. The client retries
//! on the next member, not knowing whether its first try landed; each kind
//! of call must still come out right: a release and a resign answer ok, an
//! acquire (waiting or not) and a campaign give exactly one lease and leave
//! no entry nobody holds, renewals keep the lease, status tells what is
//! held, and fences keep rising.
#![cfg(feature = "etcd")]

use crate::etcd::support::lost_reply::LostReply;
use crate::etcd::support::{members, next_change as next, prefix, raw};
use std::future::Future;
use std::time::Duration;
use tinystore::{Code, Lease, Store};
use tokio::time::timeout;

const LONG: Duration = Duration::from_secs(20);

/// A store whose first member is reached through a proxy that loses one
/// reply, and a store on the members directly, on a fresh prefix.
struct Setup {
    proxy: LostReply,
    prefix: String,
    /// The address of a store reached through the proxy.
    proxied: String,
    through: Store,
    direct: Store,
}

async fn setup(test: &str) -> Setup {
    let prefix = prefix(test);
    let all = members();
    let mut listed: Vec<&str> = all.split(',').collect();
    let proxy = LostReply::start(listed[0]).await;
    listed[0] = &proxy.addr;
    let proxied = format!("etcd://{}/{prefix}", listed.join(","));
    let through = Store::connect(&proxied).await.unwrap();
    let direct = Store::connect(&format!("etcd://{all}/{prefix}"))
        .await
        .unwrap();
    Setup {
        proxy,
        prefix,
        proxied,
        through,
        direct,
    }
}

/// One key under the prefix: its name, create and mod revisions.
struct Entry {
    key: String,
    created: i64,
    modified: i64,
}

impl Setup {
    /// The keys under the prefix but the epoch, oldest first.
    async fn entries(&self) -> Vec<Entry> {
        let root = format!("/{}/", self.prefix);
        let options = etcd_client::GetOptions::new().with_prefix().with_sort(
            etcd_client::SortTarget::Create,
            etcd_client::SortOrder::Ascend,
        );
        let got = raw()
            .await
            .kv_client()
            .get(root.clone(), Some(options))
            .await
            .unwrap();
        got.kvs()
            .iter()
            .filter(|kv| kv.key() != format!("{root}epoch").as_bytes())
            .map(|kv| Entry {
                key: String::from_utf8_lossy(kv.key()).into_owned(),
                created: kv.create_revision(),
                modified: kv.mod_revision(),
            })
            .collect()
    }

    /// Waits until `done` holds of the entries; they are returned.
    async fn entries_until(&self, done: impl Fn(&[Entry]) -> bool) -> Vec<Entry> {
        for _ in 0..400 {
            let seen = self.entries().await;
            if done(&seen) {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the entries under /{} never came as awaited", self.prefix);
    }

    /// How many entries there are once they settle at `want` (or what was
    /// seen last, after a while).
    async fn count_becomes(&self, want: usize) -> usize {
        let mut seen = self.entries().await.len();
        for _ in 0..100 {
            if seen == want {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            seen = self.entries().await.len();
        }
        seen
    }

    /// Checks that lock `m/KEY` is held once: one entry under the prefix,
    /// and the other client cannot take it.
    async fn held_once(&self, key: &str) {
        assert_eq!(self.count_becomes(1).await, 1, "not one entry for {key}");
        let other = self.direct.locks("m").try_acquire(key).await.unwrap();
        assert!(other.is_none(), "{key} was free while held");
    }

    /// Releases `lease` (of lock `m/KEY`): no entry is left, and the next
    /// holder's fence is larger.
    async fn release_leaves_nothing(&self, key: &str, lease: Lease) {
        lease.release().await.unwrap();
        assert_eq!(self.count_becomes(0).await, 0, "an entry was left");
        let next = self.direct.locks("m").acquire(key).await.unwrap();
        assert!(next.fence() > lease.fence());
        next.release().await.unwrap();
    }

    /// `losing_reply` for the next request that names the prefix, its
    /// effect seen once there are `entries` entries.
    async fn losing_reply_at<T>(&self, entries: usize, call: impl Future<Output = T>) -> T {
        let landed = self.entries_until(|e| e.len() == entries);
        self.losing_reply(self.prefix.as_bytes(), call, async {
            landed.await;
        })
        .await
    }

    /// Runs `call` with the reply to its request holding `needle` lost:
    /// the connection is cut once `landed` says the request took effect.
    async fn losing_reply<T>(
        &self,
        needle: &[u8],
        call: impl Future<Output = T>,
        landed: impl Future<Output = ()>,
    ) -> T {
        let before = self.proxy.trips();
        self.proxy.arm(needle);
        let driving = async {
            self.proxy.tripped().await;
            timeout(LONG, landed)
                .await
                .expect("the request whose reply was lost never took effect");
            self.proxy.cut();
        };
        let (out, ()) = tokio::join!(timeout(LONG, call), driving);
        assert_eq!(self.proxy.trips(), before + 1, "no reply was lost");
        out.expect("the call never ended after its reply was lost")
    }
}

/// The needle of a put of `key` with value `value` (protobuf: field 1 the
/// key, field 2 the value): a grant's write of its entry.
fn put_of(key: &str, value: &str) -> Vec<u8> {
    let mut needle = key.as_bytes().to_vec();
    needle.extend([0x12, value.len() as u8]);
    needle.extend(value.as_bytes());
    needle
}

/// The needle of a keep-alive of etcd lease `id` (field 1, a varint).
fn keep_alive_of(id: i64) -> Vec<u8> {
    let mut needle = vec![0x08];
    let mut rest = id as u64;
    loop {
        let byte = (rest & 0x7f) as u8;
        rest >>= 7;
        if rest == 0 {
            needle.push(byte);
            return needle;
        }
        needle.push(byte | 0x80);
    }
}

/// The etcd lease id an entry's name carries (`.../LEASE-N`).
fn lease_of(entry: &str) -> i64 {
    let last = entry.rsplit('/').next().unwrap();
    let hex = last.split('-').next().unwrap();
    u64::from_str_radix(hex, 16).unwrap() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_whose_reply_is_lost_is_ok() {
    let s = setup("lost-release").await;
    let lease = s.through.locks("m").acquire("k").await.unwrap();
    let released = s.losing_reply_at(0, lease.release()).await;
    released.unwrap_or_else(|err| panic!("a release that landed answered {err}"));
    assert_eq!(lease.lost_reason().map(|e| e.to_string()), None);
    assert_eq!(s.count_becomes(0).await, 0);
    let next = s.direct.locks("m").acquire("k").await.unwrap();
    assert!(next.fence() > lease.fence());
    next.release().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acquire_whose_reply_is_lost_gives_one_lease_and_no_stray_entry() {
    let s = setup("lost-acquire").await;
    let first = s.direct.locks("m").acquire("k").await.unwrap();
    first.release().await.unwrap();
    // The line is empty: the reply lost is that of the join that grants.
    let lease = s
        .losing_reply_at(1, s.through.locks("m").acquire("k"))
        .await
        .unwrap();
    assert!(lease.fence() > first.fence());
    s.held_once("k").await;
    s.release_leaves_nothing("k", lease).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_whose_reply_is_lost_gives_one_lease_after_the_holder() {
    let s = setup("lost-grant").await;
    let holder = s.direct.locks("m").acquire("k").await.unwrap();
    let locks = s.through.locks("m");
    let waiting = locks.acquire("k");
    let driving = async {
        let line = s.entries_until(|e| e.len() == 2).await;
        let mine = &line[1];
        // The needle is the grant's write of the waiter's entry: its
        // places, then its data (this process's HOST:PID).
        let value = format!("1\n{}", tinystore::default_data());
        s.proxy.arm(put_of(&mine.key, &value));
        assert_eq!(s.proxy.trips(), 0, "a request before the grant tripped");
        holder.release().await.unwrap();
        s.proxy.tripped().await;
        s.entries_until(|e| e.len() == 1 && e[0].modified > e[0].created)
            .await;
        s.proxy.cut();
    };
    let (lease, ()) = tokio::join!(timeout(LONG, waiting), driving);
    let lease = lease.expect("the waiter was never granted").unwrap();
    assert_eq!(s.proxy.trips(), 1);
    assert!(lease.fence() > holder.fence());
    s.held_once("k").await;
    s.release_leaves_nothing("k", lease).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_try_acquire_whose_reply_is_lost_takes_a_free_key_once_and_leaves_a_taken_one() {
    let s = setup("lost-try").await;
    let lease = s
        .losing_reply_at(1, s.through.locks("m").try_acquire("free"))
        .await
        .unwrap()
        .expect("a free key was not taken");
    assert_eq!(s.count_becomes(1).await, 1);
    lease.release().await.unwrap();

    // Held by another client: the entry the lost try wrote goes again.
    let holder = s.direct.locks("m").acquire("free").await.unwrap();
    assert!(holder.fence() > lease.fence());
    let other = Store::connect(&s.proxied).await.unwrap();
    let taken = s
        .losing_reply_at(2, other.locks("m").try_acquire("free"))
        .await
        .unwrap();
    assert!(taken.is_none(), "a held key was taken again");
    s.held_once("free").await;
    s.release_leaves_nothing("free", holder).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_of_a_lease_ended_on_etcd_says_how_it_ended() {
    let s = setup("ended-release").await;
    let lease = s.direct.locks("m").acquire("k").await.unwrap();
    // Its entry is deleted behind its back.
    let entry = s.entries_until(|e| e.len() == 1).await.remove(0);
    let mut kv = raw().await.kv_client();
    kv.delete(entry.key.clone(), None).await.unwrap();
    let err = lease.release().await.unwrap_err();
    assert_eq!(err.code(), Code::LeaseLost, "{err}");
    assert!(err.message().contains(&entry.key), "{err}");
    assert!(!err.message().contains("was released"), "{err}");
    assert_eq!(
        lease.lost_reason().map(|e| e.to_string()),
        Some(err.to_string())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_campaign_whose_reply_is_lost_leads_once_and_its_resign_is_ok() {
    let s = setup("lost-campaign").await;
    let mut observer = s.direct.election("e").observe().await.unwrap();
    assert_eq!(next(&mut observer).await, None);
    let election = s.through.election("e");
    let leadership = s.losing_reply_at(2, election.campaign("a")).await.unwrap();
    // One leadership, one term: the observer's next change is the
    // resignation, not a second term of the same campaign.
    assert_eq!(next(&mut observer).await, Some(leadership.leader()));
    leadership.resign().await.unwrap();
    assert_eq!(next(&mut observer).await, None);

    // A resign whose answer is lost, from a client still on the proxy.
    let other = Store::connect(&s.proxied).await.unwrap();
    let second = other.election("e").campaign("b").await.unwrap();
    assert!(second.fence() > leadership.fence());
    assert_eq!(next(&mut observer).await, Some(second.leader()));
    let resigned = s.losing_reply_at(0, second.resign()).await;
    resigned.unwrap_or_else(|err| panic!("a resign that landed answered {err}"));
    assert_eq!(next(&mut observer).await, None);
    let again = s.direct.election("e").campaign("c").await.unwrap();
    assert!(again.fence() > second.fence());
    assert_eq!(next(&mut observer).await, Some(again.leader()));
    again.resign().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewals_whose_replies_are_lost_keep_the_lease() {
    let s = setup("lost-renewal").await;
    let ttl = Duration::from_secs(2);
    // Each client talks to the proxied member first, until a call fails.
    let other = Store::connect(&s.proxied).await.unwrap();
    let renewed = s.through.locks("a").ttl(ttl).acquire("k").await.unwrap();
    let kept = other.locks("b").ttl(ttl).acquire("k").await.unwrap();
    let entries = s.entries_until(|e| e.len() == 2).await;
    let etcd_lease = |name: &str| {
        let entry = entries.iter().find(|e| e.key.contains(name)).unwrap();
        keep_alive_of(lease_of(&entry.key))
    };
    // The holder's own renewal, then the keep-alive task's.
    let answer = s
        .losing_reply(&etcd_lease("/a/"), renewed.renew(), async {
            tokio::time::sleep(Duration::from_millis(200)).await;
        })
        .await;
    answer.unwrap_or_else(|err| panic!("a renewal whose reply was lost answered {err}"));
    s.losing_reply(&etcd_lease("/b/"), std::future::ready(()), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
    })
    .await;
    // Past two TTLs, only renewals after the lost replies keep them.
    tokio::time::sleep(2 * ttl + Duration::from_millis(500)).await;
    for (name, lease) in [("a", &renewed), ("b", &kept)] {
        assert!(lease.is_held(), "{name} lost: {:?}", lease.lost_reason());
        let other = s.direct.locks(name).try_acquire("k").await.unwrap();
        assert!(other.is_none(), "{name} was free while held");
    }
    let last = renewed.fence().max(kept.fence());
    renewed.release().await.unwrap();
    kept.release().await.unwrap();
    let next = s.direct.locks("a").acquire("k").await.unwrap();
    assert!(next.fence() > last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_whose_reply_is_lost_tells_what_is_held() {
    let s = setup("lost-status").await;
    let lease = s.direct.locks("m").acquire("k").await.unwrap();
    let status = s
        .losing_reply(s.prefix.as_bytes(), s.through.status(), async {
            tokio::time::sleep(Duration::from_millis(100)).await;
        })
        .await
        .unwrap();
    assert_eq!(status.held.len(), 1);
    assert_eq!(status.held[0].key, "k");
    assert_eq!(status.held[0].fence, Some(lease.fence()));
    assert!(status.held[0].ttl_ms > 0, "{:?}", status.held[0]);
    lease.release().await.unwrap();
}
