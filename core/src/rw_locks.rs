//! `RwLocks`: a named group of read-write locks, one per key. Readers share
//! a key; a writer holds it alone, with a fence. First come first served:
//! a waiting writer holds back the readers that came after it, so writers
//! never starve.

use crate::acquiring::Acquiring;
use crate::error::{Error, Result};
use crate::group::{option_builders, Group};
use crate::lease::{Lease, Permit};
use crate::names::Key;
use crate::options::Options;
use crate::starting::{StartReadWrite, StartWatch};
use crate::vocab::Ask;
use crate::watch::Watching;

/// A group of read-write locks, one per key: a read lease is a [`Permit`]
/// (no fence), a write lease a [`Lease`] with a fence. Cheap to clone.
#[derive(Clone)]
pub struct RwLocks {
    group: Group,
}

impl RwLocks {
    pub(crate) fn new(group: Group) -> RwLocks {
        RwLocks { group }
    }

    /// This group with the fields `over` sets replaced.
    pub fn with(self, over: Options) -> RwLocks {
        RwLocks {
            group: self.group.with_options(over),
        }
    }

    option_builders!();

    fn reading(&self) -> Group {
        self.group.asking(Ask::Read)
    }

    fn writing(&self) -> Group {
        self.group.asking(Ask::Write)
    }

    /// Waits first come first served to read `key`: shared with other
    /// readers, after every writer that came first. Dropping the future
    /// gives up the wait without leaking a permit.
    pub async fn acquire_read(&self, key: impl Key) -> Result<Permit> {
        self.acquire_read_with(key, Options::default()).await
    }

    /// `acquire_read` with per-call options.
    pub async fn acquire_read_with(&self, key: impl Key, options: Options) -> Result<Permit> {
        self.reading()
            .acquire(key.key_text().into_owned(), options)
            .await
    }

    /// Waits first come first served to write `key`: alone, with a fence.
    /// Dropping the future gives up the wait without leaking a lease.
    pub async fn acquire_write(&self, key: impl Key) -> Result<Lease> {
        self.acquire_write_with(key, Options::default()).await
    }

    /// `acquire_write` with per-call options.
    pub async fn acquire_write_with(&self, key: impl Key, options: Options) -> Result<Lease> {
        self.writing()
            .acquire(key.key_text().into_owned(), options)
            .await
    }

    /// Reads `key` if no writer holds it or waits for it now.
    pub async fn try_acquire_read(&self, key: impl Key) -> Result<Option<Permit>> {
        self.try_acquire_read_with(key, Options::default()).await
    }

    /// `try_acquire_read` with per-call options.
    pub async fn try_acquire_read_with(
        &self,
        key: impl Key,
        options: Options,
    ) -> Result<Option<Permit>> {
        self.reading()
            .try_acquire(key.key_text().into_owned(), options)
            .await
    }

    /// Writes `key` if nobody holds it or waits for it now.
    pub async fn try_acquire_write(&self, key: impl Key) -> Result<Option<Lease>> {
        self.try_acquire_write_with(key, Options::default()).await
    }

    /// `try_acquire_write` with per-call options.
    pub async fn try_acquire_write_with(
        &self,
        key: impl Key,
        options: Options,
    ) -> Result<Option<Lease>> {
        self.writing()
            .try_acquire(key.key_text().into_owned(), options)
            .await
    }

    /// Reads `key`, runs `body` with the permit, and releases it however
    /// `body` ends, as [`Locks::hold`](crate::Locks::hold) does.
    pub async fn hold_read<T, E: From<Error>>(
        &self,
        key: impl Key,
        body: impl AsyncFnOnce(&Permit) -> Result<T, E>,
    ) -> Result<T, E> {
        self.hold_read_with(key, Options::default(), body).await
    }

    /// `hold_read` with per-call options.
    pub async fn hold_read_with<T, E: From<Error>>(
        &self,
        key: impl Key,
        options: Options,
        body: impl AsyncFnOnce(&Permit) -> Result<T, E>,
    ) -> Result<T, E> {
        self.reading()
            .hold(key.key_text().into_owned(), options, body)
            .await
    }

    /// Writes `key`, runs `body` with the lease, and releases it however
    /// `body` ends, as [`Locks::hold`](crate::Locks::hold) does.
    pub async fn hold_write<T, E: From<Error>>(
        &self,
        key: impl Key,
        body: impl AsyncFnOnce(&Lease) -> Result<T, E>,
    ) -> Result<T, E> {
        self.hold_write_with(key, Options::default(), body).await
    }

    /// `hold_write` with per-call options.
    pub async fn hold_write_with<T, E: From<Error>>(
        &self,
        key: impl Key,
        options: Options,
        body: impl AsyncFnOnce(&Lease) -> Result<T, E>,
    ) -> Result<T, E> {
        self.writing()
            .hold(key.key_text().into_owned(), options, body)
            .await
    }
}

impl StartReadWrite for RwLocks {
    type Read = Permit;
    type Write = Lease;

    fn acquiring_read(&self, key: impl Key, options: Options) -> Acquiring<Permit> {
        self.reading()
            .acquiring(key.key_text().into_owned(), options)
    }

    fn acquiring_write(&self, key: impl Key, options: Options) -> Acquiring<Lease> {
        self.writing()
            .acquiring(key.key_text().into_owned(), options)
    }
}

impl StartWatch for RwLocks {
    fn watching(&self, key: Option<String>) -> Watching {
        let group = self.group.clone();
        Watching::start(async move { group.watch(key).await })
    }
}
