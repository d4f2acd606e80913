//! The options of a group or a call: `ttl`, `wait`, `renew`, `max_hold`,
//! a semaphore's `weight`, and the `data` a lease carries.

use crate::error::{Error, Result};
use std::time::Duration;

/// The TTL a lease has when nothing sets one.
pub const DEFAULT_TTL: Duration = Duration::from_secs(15);
/// The shortest TTL a lease may have.
pub const MIN_TTL: Duration = Duration::from_millis(10);
/// The longest TTL a lease may have.
pub const MAX_TTL: Duration = Duration::from_secs(24 * 3600);
/// Whether held leases renew themselves when nothing says: on.
pub const DEFAULT_RENEW: bool = true;
/// How long acquire waits when nothing says: until the caller gives up.
pub const DEFAULT_WAIT: Option<Duration> = None;
/// The longest wait an acquire may ask for: 30 days.
pub const MAX_WAIT: Duration = Duration::from_secs(30 * 24 * 3600);
/// How long a lease may be held when nothing says: without end.
pub const DEFAULT_MAX_HOLD: Option<Duration> = None;
/// The shortest `max_hold` a lease may have (as short as a TTL).
pub const MIN_MAX_HOLD: Duration = MIN_TTL;
/// The longest `max_hold` a lease may have: 30 days.
pub const MAX_MAX_HOLD: Duration = Duration::from_secs(30 * 24 * 3600);

/// Options set on a group and overridden per call; a `None` field keeps the
/// group's value, or else the default ([`DEFAULT_TTL`], [`DEFAULT_WAIT`],
/// [`DEFAULT_RENEW`], [`DEFAULT_MAX_HOLD`], a weight of 1, the caller's
/// `HOST:PID` as data). A binding passes a field it was not given as `None`
/// and lets the core decide. Cheap to clone (the data is shared).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// How long a lease lives after its grant or last renewal.
    pub ttl: Option<Duration>,
    /// How long acquire may wait for the key; `None` waits until the caller
    /// gives up.
    pub wait: Option<Duration>,
    /// Whether a held lease is renewed every ttl/3 until it is released.
    pub renew: Option<bool>,
    /// The longest a lease is kept after its grant, renewals included:
    /// past it, it is renewed no more and runs out (its holder is told,
    /// as for any lost lease). From 10 ms to 30 days; `None`: no cap.
    pub max_hold: Option<Duration>,
    /// How many of a semaphore key's places one permit takes, from 1 to
    /// the semaphore's limit (default 1); only a semaphore takes it.
    pub weight: Option<u32>,
    /// What the holder says about itself, kept with the lease: shown by
    /// `status`, given to watchers. At most
    /// [`MAX_DATA_BYTES`](crate::MAX_DATA_BYTES) of text; `None`: this
    /// process's `HOST:PID` ([`default_data`](crate::default_data)); an
    /// empty text: nothing.
    pub data: Option<std::sync::Arc<str>>,
}

impl Options {
    /// These options, with each field that `over` sets taken from it.
    pub fn merged(self, over: Options) -> Options {
        Options {
            ttl: over.ttl.or(self.ttl),
            wait: over.wait.or(self.wait),
            renew: over.renew.or(self.renew),
            max_hold: over.max_hold.or(self.max_hold),
            weight: over.weight.or(self.weight),
            data: over.data.or(self.data),
        }
    }

    /// The TTL to use, checked against the allowed range.
    pub fn checked_ttl(&self) -> Result<Duration> {
        let ttl = self.ttl.unwrap_or(DEFAULT_TTL);
        check_ttl(ttl)?;
        Ok(ttl)
    }

    /// The wait to use, checked against the allowed range.
    pub fn checked_wait(&self) -> Result<Option<Duration>> {
        let wait = self.wait.or(DEFAULT_WAIT);
        if let Some(wait) = wait {
            check_wait(wait)?;
        }
        Ok(wait)
    }

    /// Whether held leases are renewing: renewed every ttl/3 until they
    /// are released (the option `renew`, on by default).
    pub fn renews(&self) -> bool {
        self.renew.unwrap_or(DEFAULT_RENEW)
    }

    /// The `max_hold` to use, checked against the allowed range.
    pub fn checked_max_hold(&self) -> Result<Option<Duration>> {
        let max_hold = self.max_hold.or(DEFAULT_MAX_HOLD);
        if let Some(max_hold) = max_hold {
            check_max_hold(max_hold)?;
        }
        Ok(max_hold)
    }
}

/// Checks that a `max_hold` is from 10 ms to 30 days.
pub(crate) fn check_max_hold(max_hold: Duration) -> Result<()> {
    if max_hold < MIN_MAX_HOLD || max_hold > MAX_MAX_HOLD {
        return Err(Error::invalid(format!(
            "max_hold {max_hold:?} is out of range: it must be from 10ms to 30 days"
        )));
    }
    Ok(())
}

/// Checks that a TTL is from 10 ms to 24 h.
pub(crate) fn check_ttl(ttl: Duration) -> Result<()> {
    if ttl < MIN_TTL || ttl > MAX_TTL {
        return Err(Error::invalid(format!(
            "ttl {ttl:?} is out of range: it must be from 10ms to 24h"
        )));
    }
    Ok(())
}

/// Checks that a wait is at most 30 days.
pub(crate) fn check_wait(wait: Duration) -> Result<()> {
    if wait > MAX_WAIT {
        return Err(Error::invalid(format!(
            "wait {wait:?} is out of range: it must be from 0 to 30 days"
        )));
    }
    Ok(())
}
