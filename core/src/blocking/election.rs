//! Blocking elections: `Election`, `Leadership` and `Observer`, the async
//! ones with calls that wait.

use crate::error::{Error, Result};
use crate::fence::Fence;
use crate::hold::hold_outcome;
use crate::options::Options;
use crate::Leader;
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

/// An election, for blocking code. Cheap to clone.
#[derive(Clone)]
pub struct Election {
    inner: crate::Election,
    rt: Arc<Runtime>,
}

impl Election {
    pub(crate) fn new(inner: crate::Election, rt: Arc<Runtime>) -> Election {
        Election { inner, rt }
    }

    /// The election's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// This election with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> Election {
        Election::new(self.inner.with(over), self.rt)
    }

    /// Sets the TTL of a leadership (default 15 s).
    pub fn ttl(self, ttl: Duration) -> Election {
        Election::new(self.inner.ttl(ttl), self.rt)
    }

    /// Sets whether a leadership is renewed every ttl/3 (default on).
    pub fn renew(self, renew: bool) -> Election {
        Election::new(self.inner.renew(renew), self.rt)
    }

    /// Sets how long `campaign` may wait to lead (default: forever).
    pub fn wait(self, wait: Duration) -> Election {
        Election::new(self.inner.wait(wait), self.rt)
    }

    /// Waits first come first served until this caller leads with `value`.
    pub fn campaign(&self, value: &str) -> Result<Leadership> {
        self.campaign_with(value, Options::default())
    }

    /// `campaign` with per-call options.
    pub fn campaign_with(&self, value: &str, options: Options) -> Result<Leadership> {
        let inner = self.rt.block_on(self.inner.campaign_with(value, options))?;
        Ok(Leadership {
            inner,
            rt: self.rt.clone(),
        })
    }

    /// Campaigns, runs `body` while leading, and resigns however `body`
    /// ends, panics included; it returns as a lock's hold does: the
    /// body's own error first, else `closed` or `lease_lost` when the
    /// leadership was lost before the body ended, else the body's value.
    pub fn lead<T, E: From<Error>>(
        &self,
        value: &str,
        body: impl FnOnce(&Leadership) -> Result<T, E>,
    ) -> Result<T, E> {
        self.lead_with(value, Options::default(), body)
    }

    /// `lead` with per-call options.
    pub fn lead_with<T, E: From<Error>>(
        &self,
        value: &str,
        options: Options,
        body: impl FnOnce(&Leadership) -> Result<T, E>,
    ) -> Result<T, E> {
        let leadership = self.campaign_with(value, options)?;
        let result = body(&leadership);
        let resigned = leadership.resign();
        hold_outcome(result, resigned)
    }

    /// The leader now, or `None`.
    pub fn leader(&self) -> Result<Option<Leader>> {
        self.rt.block_on(self.inner.leader())
    }

    /// Every change of leader from now on, as an iterator that blocks for
    /// the next change; see [`crate::Observer`].
    pub fn observe(&self) -> Result<Observer> {
        let inner = self.rt.block_on(self.inner.observe())?;
        Ok(Observer {
            inner,
            rt: self.rt.clone(),
        })
    }
}

/// Leading an election, for blocking code. Dropping it resigns.
pub struct Leadership {
    inner: crate::Leadership,
    rt: Arc<Runtime>,
}

impl Leadership {
    /// The async leadership underneath.
    pub fn as_async(&self) -> &crate::Leadership {
        &self.inner
    }

    /// The election's name.
    pub fn name(&self) -> &str {
        self.inner.name()
    }

    /// The value this leader campaigned with.
    pub fn value(&self) -> &str {
        self.inner.value()
    }

    /// The term: larger than every earlier leader's.
    pub fn fence(&self) -> Fence {
        self.inner.fence()
    }

    /// Whether it still leads.
    pub fn is_held(&self) -> bool {
        self.inner.is_held()
    }

    /// Extends it by its TTL from now; `lease_lost` if it ran out.
    pub fn renew(&self) -> Result<()> {
        self.rt.block_on(self.inner.renew())
    }

    /// Stops leading; the next in the queue leads at once. Idempotent; fails
    /// with why when it was lost first (`closed` or `lease_lost`).
    pub fn resign(&self) -> Result<()> {
        self.rt.block_on(self.inner.resign())
    }

    /// Why it was lost; `None` while held or after it resigned.
    pub fn lost_reason(&self) -> Option<Error> {
        self.inner.lost_reason()
    }

    /// Waits until it is lost, up to `timeout`; `None` if still held then.
    pub fn wait_lost(&self, timeout: Duration) -> Option<Error> {
        self.rt
            .block_on(async { tokio::time::timeout(timeout, self.inner.lost()).await.ok() })
    }
}

impl std::fmt::Debug for Leadership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

/// The changes of an election's leader, for blocking code: each `next`
/// blocks until the next change. Ends after an error (`closed`, `limit`).
pub struct Observer {
    inner: crate::Observer,
    rt: Arc<Runtime>,
}

impl Iterator for Observer {
    type Item = Result<Option<Leader>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rt.block_on(self.inner.next())
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}
