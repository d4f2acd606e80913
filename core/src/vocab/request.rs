//! `Request`: what a caller asks of a store for one key, checked once. Every
//! way in builds one: an embedded group, the server (from a wire frame),
//! and through the group the remote and etcd backends. The engine takes
//! only this type, so it never meets a bad name, key, limit, TTL or wait.

use super::key_id::{GroupKind, KeyId};
use super::lost::LostTo;
use crate::error::{Error, Result};
use crate::options::{Options, MAX_TTL, MAX_WAIT, MIN_TTL};
use std::sync::Arc;
use std::time::Duration;

/// The most holders a semaphore key may allow at once.
pub const MAX_LIMIT: u32 = 1_000_000;

/// How many places a read-write lock key has: a reader takes one, a writer
/// takes them all. So a read-write lock is a weighted semaphore whose
/// first-come-first-served queue holds back the readers that came after a
/// waiting writer, and at most this many readers share a key.
pub(crate) const RW_PLACES: u32 = MAX_LIMIT;

/// What a request asks to hold, by the kind of its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ask {
    /// An exclusive lock's lease, with a fence.
    Lock,
    /// A permit of a semaphore that allows `limit` places at once.
    Permit {
        /// The semaphore's places.
        limit: u32,
    },
    /// A read lease of a read-write lock: shared, no fence.
    Read,
    /// A write lease of a read-write lock: exclusive, with a fence.
    Write,
}

impl Ask {
    /// A lock's (`limit` absent) or a semaphore's ask, as a group or the
    /// wire names it.
    pub(crate) fn of_limit(limit: Option<u32>) -> Ask {
        match limit {
            None => Ask::Lock,
            Some(limit) => Ask::Permit { limit },
        }
    }
}

/// A request for one key whose every field was checked.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    key: Arc<KeyId>,
    limit: u32,
    /// The places of the key's `limit` this request takes (1 but for a
    /// weighted permit or a write lease).
    weight: u32,
    /// Whether its lease carries a fence.
    fenced: bool,
    ttl: Duration,
    wait: Option<Duration>,
    renewing: bool,
    max_hold: Option<Duration>,
    lost_to: LostTo,
    /// The campaigner's value, for an election's key.
    value: Option<Arc<str>>,
    /// What the holder says about itself (lease_data.rs); `None` when it
    /// says nothing.
    data: Option<Arc<str>>,
}

impl Request {
    /// Checks a request of the group `name` for `key`, asking `ask`, with
    /// `options` (unset fields take the defaults). Fails with `invalid`,
    /// naming the field, on: a name not 1 to 128 bytes of
    /// `A-Z a-z 0-9 . _ - :`; a key not 1 to 1024 bytes; a limit not from
    /// 1 to [`MAX_LIMIT`]; a weight not from 1 to the limit, or given for
    /// anything but a semaphore; a TTL not from 10 ms to 24 h; a wait over
    /// 30 days; a `max_hold` not from 10 ms to 30 days; data over 1024
    /// bytes. Checked in that order. Data not given is this process's
    /// `HOST:PID`.
    pub(crate) fn new(name: &str, key: &str, ask: Ask, options: Options) -> Result<Request> {
        let key = KeyId::new(ask.group_kind(), name, key)?;
        let (limit, weight) = places(name, ask, options.weight)?;
        Ok(Request {
            key: Arc::new(key),
            limit,
            weight,
            fenced: matches!(ask, Ask::Lock | Ask::Write),
            ttl: options.checked_ttl()?,
            wait: options.checked_wait()?,
            renewing: options.renews(),
            max_hold: options.checked_max_hold()?,
            lost_to: LostTo::Watch,
            value: None,
            data: crate::lease_data::lease_data(options.data.as_ref())?,
        })
    }

    /// Checks a campaign in the election `name` for the leader's `value`,
    /// with `options`: `invalid`, naming the field, on a bad name, a value
    /// over [`MAX_VALUE_BYTES`](crate::MAX_VALUE_BYTES), a weight or data
    /// (a leader is known by its value), a bad TTL or wait, checked in that
    /// order.
    pub(crate) fn election(name: &str, value: &str, options: Options) -> Result<Request> {
        let key = KeyId::election(name)?;
        crate::names::check_value(name, value)?;
        if options.weight.is_some() {
            return Err(Error::invalid(format!(
                "election {name} was given a weight; only a semaphore takes one"
            )));
        }
        if options.data.is_some() {
            return Err(Error::invalid(format!(
                "election {name} was given data; a leader is known by its value"
            )));
        }
        Ok(Request {
            key: Arc::new(key),
            limit: 1,
            weight: 1,
            fenced: true,
            ttl: options.checked_ttl()?,
            wait: options.checked_wait()?,
            renewing: options.renews(),
            max_hold: options.checked_max_hold()?,
            lost_to: LostTo::Watch,
            value: Some(value.into()),
            data: None,
        })
    }

    /// [`Request::new`] for a request that came over the wire, whose times
    /// are whole milliseconds: the same checks, with the errors naming the
    /// fields as the wire does (`ttl_ms`, `wait_ms`, `max_hold_ms`). Its
    /// lease does not renew itself: the client renews it. Its `data` is
    /// what the client sent, nothing when it sent none or an empty text
    /// (the client fills in its own default before sending).
    pub(crate) fn from_wire(
        name: &str,
        key: &str,
        ask: Ask,
        times: WireTimes,
        data: Option<&str>,
    ) -> Result<Request> {
        let key = KeyId::new(ask.group_kind(), name, key)?;
        let (limit, weight) = places(name, ask, times.weight)?;
        let (ttl, wait) = wire_times(times.ttl_ms, times.wait_ms)?;
        let max_hold = wire_max_hold(times.max_hold_ms)?;
        if let Some(data) = data {
            crate::lease_data::check_data(data)?;
        }
        Ok(Request {
            key: Arc::new(key),
            limit,
            weight,
            fenced: matches!(ask, Ask::Lock | Ask::Write),
            ttl,
            wait,
            renewing: false,
            max_hold,
            lost_to: LostTo::Watch,
            value: None,
            data: data.filter(|d| !d.is_empty()).map(Arc::from),
        })
    }

    /// [`Request::election`] for a campaign that came over the wire: the
    /// same checks, in the same order, with the errors naming the fields as
    /// the wire does. Its leadership does not renew itself: the client
    /// renews it.
    pub(crate) fn election_from_wire(name: &str, value: &str, times: WireTimes) -> Result<Request> {
        let key = KeyId::election(name)?;
        crate::names::check_value(name, value)?;
        if times.weight.is_some() {
            return Err(Error::invalid(format!(
                "election {name} was given a weight; only a semaphore takes one"
            )));
        }
        let (ttl, wait) = wire_times(times.ttl_ms, times.wait_ms)?;
        Ok(Request {
            key: Arc::new(key),
            limit: 1,
            weight: 1,
            fenced: true,
            ttl,
            wait,
            renewing: false,
            max_hold: wire_max_hold(times.max_hold_ms)?,
            lost_to: LostTo::Watch,
            value: Some(value.into()),
            data: None,
        })
    }

    /// This request, its lease's end told through `lost_to`.
    pub(crate) fn told_through(self, lost_to: LostTo) -> Request {
        Request { lost_to, ..self }
    }

    /// The key asked for.
    pub(crate) fn key(&self) -> &Arc<KeyId> {
        &self.key
    }

    /// Places the key has: 1 for a lock, a semaphore's limit,
    /// [`RW_PLACES`] for a read-write lock.
    pub(crate) fn limit(&self) -> u32 {
        self.limit
    }

    /// The places of [`limit`](Request::limit) this request takes: 1 for a
    /// lock, a read lease and an unweighted permit; all of them for a
    /// write lease.
    pub(crate) fn weight(&self) -> u32 {
        self.weight
    }

    /// Whether the lease carries a fence: a lock's, a write lease's, an
    /// election's.
    pub(crate) fn fenced(&self) -> bool {
        self.fenced
    }

    /// The longest the lease is kept after its grant, renewals included;
    /// `None` without a cap.
    pub(crate) fn max_hold(&self) -> Option<Duration> {
        self.max_hold
    }

    /// `max_hold` in whole milliseconds (at most 30 days, so it fits).
    pub(crate) fn max_hold_ms(&self) -> Option<u64> {
        self.max_hold
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    /// What the request asks: a lock's lease, a permit, a read or a write
    /// lease (an election's campaign asks as a lock).
    pub(crate) fn ask(&self) -> Ask {
        match self.key.group_kind() {
            GroupKind::Lock | GroupKind::Election => Ask::Lock,
            GroupKind::Semaphore => Ask::Permit { limit: self.limit },
            GroupKind::RwLock if self.fenced => Ask::Write,
            GroupKind::RwLock => Ask::Read,
        }
    }

    /// The lease's TTL, from 10 ms to 24 h.
    pub(crate) fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The TTL in whole milliseconds (at most a day, so it fits).
    pub(crate) fn ttl_ms(&self) -> u32 {
        u32::try_from(self.ttl.as_millis()).unwrap_or(u32::MAX)
    }

    /// How long acquire may wait; `None` until the caller gives up.
    pub(crate) fn wait(&self) -> Option<Duration> {
        self.wait
    }

    /// Whether the lease is renewing: renewed every ttl/3 until it is
    /// released.
    pub(crate) fn renewing(&self) -> bool {
        self.renewing
    }

    /// The campaigner's value, for an election; `None` for a lock or a
    /// semaphore.
    pub(crate) fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }

    /// What the holder says about itself, kept with the lease; `None`
    /// when it says nothing (an election's campaign, a wire client that
    /// sent none).
    pub(crate) fn data(&self) -> Option<&str> {
        self.data.as_deref()
    }

    /// The data as shared text, for a record that keeps it.
    pub(crate) fn data_shared(&self) -> Option<Arc<str>> {
        self.data.clone()
    }

    /// This request with `wait` as its wait (checked already).
    pub(crate) fn with_wait(self, wait: Option<Duration>) -> Request {
        Request { wait, ..self }
    }

    /// Waits for `waiting` up to this request's `wait` (forever without
    /// one); past it, `timeout` saying "waited W for KEY without getting
    /// it" (a lock's or semaphore's) or "waited W to lead KEY without
    /// leading" (an election's). The one place a wait is applied: each
    /// backend calls it where the line is (the engine's, etcd's, the
    /// server's for a client), and every layer above passes the wait down.
    pub(crate) async fn within_wait<T>(
        &self,
        waiting: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        let Some(wait) = self.wait else {
            return waiting.await;
        };
        let key = &self.key;
        tokio::time::timeout(wait, waiting).await.map_err(|_| {
            let message = if key.is_election() {
                format!("waited {wait:?} to lead {key} without leading")
            } else {
                format!("waited {wait:?} for {key} without getting it")
            };
            Error::new(crate::error::Code::Timeout, message)
        })?
    }

    /// How the holder is told the lease ended.
    pub(crate) fn lost_to(&self) -> &LostTo {
        &self.lost_to
    }
}

/// The fields of an acquire that came over the wire beside its name, key
/// and ask: its times in whole milliseconds, and a permit's weight.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WireTimes {
    /// The lease's TTL.
    pub ttl_ms: Option<u64>,
    /// How long to wait.
    pub wait_ms: Option<u64>,
    /// The longest the lease is kept.
    pub max_hold_ms: Option<u64>,
    /// A permit's places.
    pub weight: Option<u32>,
}

impl Ask {
    /// The kind of group that gives what is asked.
    pub(crate) fn group_kind(self) -> GroupKind {
        match self {
            Ask::Lock => GroupKind::Lock,
            Ask::Permit { .. } => GroupKind::Semaphore,
            Ask::Read | Ask::Write => GroupKind::RwLock,
        }
    }
}

/// The places a key has and the places `ask` takes of them, with `weight`
/// (a semaphore's only, from 1 to its limit).
fn places(name: &str, ask: Ask, weight: Option<u32>) -> Result<(u32, u32)> {
    let limit = match ask {
        Ask::Lock => 1,
        Ask::Permit { limit } => check_limit(name, limit)?,
        Ask::Read | Ask::Write => RW_PLACES,
    };
    match (ask, weight) {
        (Ask::Permit { .. }, Some(w)) if (1..=limit).contains(&w) => Ok((limit, w)),
        (Ask::Permit { .. }, Some(w)) => Err(Error::invalid(format!(
            "weight {w} is out of range for semaphore {name}: it must be from 1 to its limit {limit}"
        ))),
        (Ask::Permit { .. } | Ask::Lock | Ask::Read, None) => Ok((limit, 1)),
        (Ask::Write, None) => Ok((limit, RW_PLACES)),
        (_, Some(_)) => Err(Error::invalid(format!(
            "{} {name} was given a weight; only a semaphore takes one",
            ask.group_kind_word()
        ))),
    }
}

impl Ask {
    fn group_kind_word(self) -> &'static str {
        match self {
            Ask::Lock => "lock group",
            Ask::Permit { .. } => "semaphore",
            Ask::Read | Ask::Write => "read-write lock group",
        }
    }
}

/// A `max_hold_ms` that came over the wire; `invalid` naming it when out of
/// range.
fn wire_max_hold(max_hold_ms: Option<u64>) -> Result<Option<Duration>> {
    let Some(ms) = max_hold_ms else {
        return Ok(None);
    };
    let max_hold = Duration::from_millis(ms);
    crate::options::check_max_hold(max_hold).map_err(|_| {
        Error::invalid(format!(
            "max_hold_ms {ms} is out of range: it must be from {} to {} (10 ms to 30 days)",
            crate::options::MIN_MAX_HOLD.as_millis(),
            crate::options::MAX_MAX_HOLD.as_millis()
        ))
    })?;
    Ok(Some(max_hold))
}

/// The TTL and wait of a request that came over the wire, in whole
/// milliseconds; `invalid` naming `ttl_ms` or `wait_ms` when out of range.
fn wire_times(ttl_ms: Option<u64>, wait_ms: Option<u64>) -> Result<(Duration, Option<Duration>)> {
    let options = Options {
        ttl: ttl_ms.map(Duration::from_millis),
        wait: wait_ms.map(Duration::from_millis),
        renew: Some(false),
        ..Options::default()
    };
    let ttl = options.checked_ttl().map_err(|_| {
        Error::invalid(format!(
            "ttl_ms {} is out of range: it must be from {} to {} (10 ms to 24 h)",
            options.ttl.unwrap_or_default().as_millis(),
            MIN_TTL.as_millis(),
            MAX_TTL.as_millis()
        ))
    })?;
    let wait = options.checked_wait().map_err(|_| {
        Error::invalid(format!(
            "wait_ms {} is out of range: it must be from 0 to {} (30 days)",
            wait_ms.unwrap_or(0),
            MAX_WAIT.as_millis()
        ))
    })?;
    Ok((ttl, wait))
}

/// A semaphore's limit, from 1 to [`MAX_LIMIT`].
fn check_limit(name: &str, limit: u32) -> Result<u32> {
    match limit {
        limit if (1..=MAX_LIMIT).contains(&limit) => Ok(limit),
        limit => Err(Error::invalid(format!(
            "semaphore {name} has limit {limit}; a limit must be from 1 to {MAX_LIMIT}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::{Ask, Request, WireTimes, MAX_LIMIT};
    use crate::{Code, Options};
    use std::time::Duration;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    /// The `invalid` message of a request that must fail.
    fn refused(request: crate::Result<Request>) -> String {
        let err = request.expect_err("refused");
        assert_eq!(err.code(), Code::Invalid, "{err}");
        err.message().to_string()
    }

    #[test]
    fn a_good_request_takes_the_defaults_it_was_not_given() {
        let lock = Request::new("orders", "42", Ask::Lock, Options::default()).unwrap();
        assert_eq!(lock.key().to_string(), "lock orders/42");
        assert_eq!(
            (lock.limit(), lock.ttl(), lock.wait(), lock.renewing()),
            (
                1,
                crate::DEFAULT_TTL,
                crate::DEFAULT_WAIT,
                crate::DEFAULT_RENEW
            )
        );
        let options = Options {
            ttl: ms(10),
            wait: Some(crate::MAX_WAIT),
            renew: Some(false),
            ..Options::default()
        };
        let permit = Request::new("s", "k", Ask::of_limit(Some(MAX_LIMIT)), options).unwrap();
        assert_eq!(permit.key().to_string(), "semaphore s/k");
        assert_eq!((permit.limit(), permit.ttl_ms()), (MAX_LIMIT, 10));
        assert!(!permit.renewing());
        let wire = Request::from_wire(
            "s",
            "k",
            Ask::of_limit(Some(3)),
            WireTimes {
                ttl_ms: Some(86_400_000),
                wait_ms: Some(0),
                ..WireTimes::default()
            },
            None,
        )
        .unwrap();
        assert_eq!(
            (wire.ttl_ms(), wire.wait(), wire.renewing()),
            (86_400_000, ms(0), false)
        );
    }

    #[test]
    fn data_is_kept_defaulted_emptied_or_refused_over_1024_bytes() {
        let with = |data: &str| Options {
            data: Some(data.into()),
            ..Options::default()
        };
        let lock = |o: Options| Request::new("n", "k", Ask::Lock, o);
        assert_eq!(lock(with("worker 3")).unwrap().data(), Some("worker 3"));
        assert_eq!(lock(with("")).unwrap().data(), None);
        let default = lock(Options::default()).unwrap();
        assert_eq!(default.data(), Some(&*crate::default_data()));
        assert!(refused(lock(with(&"x".repeat(1025)))).contains("data must be at most 1024 bytes"));
        assert!(refused(Request::election("n", "v", with("d"))).contains("was given data"));
        let wire = |d| Request::from_wire("n", "k", Ask::Lock, WireTimes::default(), d);
        assert_eq!(wire(None).unwrap().data(), None, "no default on the server");
        assert_eq!(wire(Some("")).unwrap().data(), None);
        assert_eq!(wire(Some("h:1")).unwrap().data(), Some("h:1"));
        assert!(refused(wire(Some(&"x".repeat(1025)))).contains("at most 1024 bytes, not 1025"));
    }

    #[test]
    fn each_bad_field_is_named_in_the_order_checked() {
        let big = Options {
            ttl: ms(5),
            wait: Some(crate::MAX_WAIT + Duration::from_millis(1)),
            ..Options::default()
        };
        let key = "k".repeat(1025);
        for (request, says) in [
            (
                Request::new("", &key, Ask::of_limit(Some(0)), big.clone()),
                "name \"\" must be 1 to 128 bytes, not 0",
            ),
            (
                Request::new("a/b", "k", Ask::Lock, big.clone()),
                "name \"a/b\" has '/'",
            ),
            (
                Request::new("n", &key, Ask::of_limit(Some(0)), big.clone()),
                "key of n must be 1 to 1024 bytes, not 1025",
            ),
            (
                Request::new("n", "k", Ask::of_limit(Some(0)), big.clone()),
                "semaphore n has limit 0; a limit must be from 1 to 1000000",
            ),
            (
                Request::new("n", "k", Ask::Lock, big.clone()),
                "ttl 5ms is out of range: it must be from 10ms to 24h",
            ),
            (
                Request::new(
                    "n",
                    "k",
                    Ask::Lock,
                    Options {
                        ttl: ms(86_400_001),
                        ..Options::default()
                    },
                ),
                "ttl 86400.001s is out of range",
            ),
            (
                Request::new(
                    "n",
                    "k",
                    Ask::Lock,
                    Options {
                        wait: big.wait,
                        ..Options::default()
                    },
                ),
                "wait 2592000.001s is out of range: it must be from 0 to 30 days",
            ),
            (
                Request::from_wire(
                    "n",
                    "k",
                    Ask::Lock,
                    WireTimes {
                        ttl_ms: Some(0),
                        ..WireTimes::default()
                    },
                    None,
                ),
                "ttl_ms 0 is out of range: it must be from 10 to 86400000 (10 ms to 24 h)",
            ),
            (
                Request::from_wire(
                    "n",
                    "k",
                    Ask::of_limit(Some(MAX_LIMIT + 1)),
                    WireTimes {
                        ttl_ms: Some(0),
                        wait_ms: None,
                        ..WireTimes::default()
                    },
                    None,
                ),
                "semaphore n has limit 1000001; a limit must be from 1 to 1000000",
            ),
            (
                Request::from_wire(
                    "n",
                    "k",
                    Ask::Lock,
                    WireTimes {
                        ttl_ms: None,
                        wait_ms: Some(2_592_000_001),
                        ..WireTimes::default()
                    },
                    None,
                ),
                "wait_ms 2592000001 is out of range: it must be from 0 to 2592000000 (30 days)",
            ),
        ] {
            let message = refused(request);
            assert!(message.contains(says), "{message:?} should say {says:?}");
        }
    }
}
