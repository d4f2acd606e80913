//! `Election`: a named election of a store, with its options, and the
//! steps from a campaign to a `Leadership`.

use super::leader::Leader;
use super::leadership::Leadership;
use super::observe::Observer;
use super::observing::Observing;
use crate::acquiring::Acquiring;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::group::held_from;
use crate::hold::{hold_outcome, stopped_outcome};
use crate::lease::Lease;
use crate::names::check_name;
use crate::options::Options;
use crate::starting::StartCampaign;
use crate::vocab::Request;
use std::sync::Arc;
use std::time::Duration;

/// The election called `name` of a store. Cheap to clone. An election and
/// a lock group or semaphore of the same name are apart.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), tinystore::Error> {
/// # let dir = tempfile::tempdir().unwrap();
/// use futures_util::StreamExt;
/// let store = tinystore::Store::open(dir.path()).await?;
/// let election = store.election("scheduler");
/// let mut changes = election.observe().await?;
/// assert_eq!(changes.next().await.transpose()?, Some(None)); // nobody leads yet
/// let term = election
///     .lead("worker-7", async |leadership| -> Result<_, tinystore::Error> {
///         // Send leadership.fence().text() with every write the leader makes.
///         Ok(leadership.fence())
///     })
///     .await?;
/// let led = changes.next().await.transpose()?.flatten().expect("a leader");
/// assert_eq!((led.value(), led.fence()), ("worker-7", term));
/// assert_eq!(changes.next().await.transpose()?, Some(None)); // it resigned
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Election {
    backend: Arc<dyn Backend>,
    name: Arc<str>,
    options: Options,
}

impl Election {
    pub(crate) fn new(backend: Arc<dyn Backend>, name: &str) -> Election {
        Election {
            backend,
            name: name.into(),
            options: Options::default(),
        }
    }

    /// The election's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The election's options.
    pub fn options(&self) -> Options {
        self.options.clone()
    }

    /// This election with the fields `over` sets replaced.
    pub fn with(mut self, over: Options) -> Election {
        self.options = std::mem::take(&mut self.options).merged(over);
        self
    }

    /// Sets the TTL of a leadership (default
    /// [`DEFAULT_TTL`](crate::DEFAULT_TTL), 15 s).
    pub fn ttl(self, ttl: Duration) -> Election {
        self.with(Options {
            ttl: Some(ttl),
            ..Options::default()
        })
    }

    /// Sets whether a leadership is renewed every ttl/3 until it resigns
    /// (default [`DEFAULT_RENEW`](crate::DEFAULT_RENEW): on). Off, it runs
    /// out `ttl` after it began or was last renewed by hand.
    pub fn renew(self, renew: bool) -> Election {
        self.with(Options {
            renew: Some(renew),
            ..Options::default()
        })
    }

    /// Sets how long `campaign` may wait to lead, up to 30 days (default
    /// [`DEFAULT_WAIT`](crate::DEFAULT_WAIT): until given up); then
    /// `timeout`.
    pub fn wait(self, wait: Duration) -> Election {
        self.with(Options {
            wait: Some(wait),
            ..Options::default()
        })
    }

    /// Sets the longest a leadership is kept after it began, renewals
    /// included (default none): past it, it is renewed no more, runs out,
    /// and its leader is told, as for any lost leadership.
    pub fn max_hold(self, max_hold: Duration) -> Election {
        self.with(Options {
            max_hold: Some(max_hold),
            ..Options::default()
        })
    }

    /// Waits, first come first served, until this caller leads, with
    /// `value` (text of at most 1,024 bytes) as what it says it is.
    /// Dropping the future gives up the campaign and never leaves a
    /// leadership behind.
    pub async fn campaign(&self, value: &str) -> Result<Leadership> {
        self.campaign_with(value, Options::default()).await
    }

    /// `campaign` with per-call options.
    pub async fn campaign_with(&self, value: &str, options: Options) -> Result<Leadership> {
        let request = Request::election(&self.name, value, self.options.clone().merged(options))?;
        // A campaign is an acquire of the election's key: the backend ends
        // its wait where the queue is, so a campaign whose wait ran out
        // never leads.
        let grant = self.backend.acquire(request.clone()).await?;
        let lease: Lease = held_from(&self.backend, &request, grant)?;
        Ok(Leadership::new(lease, value.to_string()))
    }

    /// Campaigns, runs `body` while leading, and resigns however `body`
    /// ends. Losing the leadership stops `body` at the await it is at (the
    /// future is dropped), unless it ends in that same poll. Returns
    /// `body`'s error if it failed; else `closed` or `lease_lost` if the
    /// leadership was lost before `body` ended (a later leader may have
    /// acted); else what `body` returned.
    pub async fn lead<T, E: From<Error>>(
        &self,
        value: &str,
        body: impl AsyncFnOnce(&Leadership) -> Result<T, E>,
    ) -> Result<T, E> {
        self.lead_with(value, Options::default(), body).await
    }

    /// `lead` with per-call options.
    pub async fn lead_with<T, E: From<Error>>(
        &self,
        value: &str,
        options: Options,
        body: impl AsyncFnOnce(&Leadership) -> Result<T, E>,
    ) -> Result<T, E> {
        let leadership = self.campaign_with(value, options).await?;
        let ended = leadership.until_lost(body(&leadership)).await;
        let resigned = leadership.resign().await;
        match ended {
            Ok(result) => hold_outcome(result, resigned),
            Err(lost) => stopped_outcome(resigned, lost),
        }
    }

    /// The leader now (its value and term), or `None` when nobody leads.
    pub async fn leader(&self) -> Result<Option<Leader>> {
        check_name(&self.name)?;
        self.backend.leader(&self.name).await
    }

    /// Every change of leader from now on, in order, pushed as it happens:
    /// the leader now (or `None`) first, then each change, `None` when
    /// nobody leads. See [`Observer`] for how it ends.
    pub async fn observe(&self) -> Result<Observer> {
        check_name(&self.name)?;
        self.backend.observe(&self.name).await
    }
}

impl StartCampaign for Election {
    type Held = Leadership;

    fn campaigning(&self, value: &str, options: Options) -> Acquiring<Leadership> {
        let (election, value) = (self.clone(), value.to_string());
        Acquiring::new(async move { election.campaign_with(&value, options).await })
    }

    fn observing(&self) -> Observing {
        let election = self.clone();
        Observing::start(async move { election.observe().await })
    }
}

impl std::fmt::Debug for Election {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Election")
            .field("name", &self.name)
            .field("options", &self.options)
            .finish()
    }
}
