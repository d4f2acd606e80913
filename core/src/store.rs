//! `Store`: an open store, owned by this process or reached over a
//! connection, and the door to its `Locks` and `Semaphore` groups.

use crate::backend::Backend;
use crate::client::{Address, ConnectOptions, Remote};
use crate::clock::{Clock, SystemClock};
use crate::embedded::Embedded;
use crate::error::{Code, Result};
use crate::group::Group;
use crate::locks::Locks;
use crate::semaphore::Semaphore;
use crate::status::Status;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How a store is opened. The defaults suit an embedded store: the system
/// clock and no grace after an unclean stop.
#[derive(Clone)]
pub struct StoreOptions {
    /// The wall clock the epoch is read from.
    pub clock: Arc<dyn Clock>,
    /// How long to wait before the first grant when the last stop was not
    /// clean, so that holders from before it have run out.
    pub grace: Option<Duration>,
    /// A file to append every grant and end of a lease to (see
    /// [`crate::engine::Audit`]); none by default.
    pub audit: Option<std::path::PathBuf>,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            clock: Arc::new(SystemClock),
            grace: None,
            audit: None,
        }
    }
}

impl StoreOptions {
    /// These options with `clock`.
    pub fn clock(mut self, clock: impl Clock) -> StoreOptions {
        self.clock = Arc::new(clock);
        self
    }

    /// These options with a grace after an unclean stop.
    pub fn grace(mut self, grace: Duration) -> StoreOptions {
        self.grace = Some(grace);
        self
    }

    /// These options with an audit log appended to `path`.
    pub fn audit(mut self, path: impl Into<std::path::PathBuf>) -> StoreOptions {
        self.audit = Some(path.into());
        self
    }
}

/// An open store. Cheap to clone; every clone is the same store.
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn Backend>,
}

impl Store {
    /// Opens the store directory `dir`, making it if missing. Fails with
    /// `in_use`, naming the owner's pid, when another process owns it.
    pub async fn open(dir: impl AsRef<Path>) -> Result<Store> {
        Store::open_with(dir, StoreOptions::default()).await
    }

    /// `open` with options. When another process owns `dir` and serves it,
    /// this connects to `DIR/tinystore.sock` instead (the options then do not
    /// apply). A socket left by a dead server is ignored: the owner lock on
    /// `DIR/LOCK` tells whether anyone owns the store.
    pub async fn open_with(dir: impl AsRef<Path>, options: StoreOptions) -> Result<Store> {
        let dir = dir.as_ref();
        match Embedded::open(dir, &options) {
            Ok(embedded) => Ok(Store {
                backend: Arc::new(embedded),
            }),
            Err(err) if err.code() == Code::InUse => {
                let socket = dir.join(crate::disk::SOCKET);
                if !socket.exists() {
                    return Err(err);
                }
                Store::connect_to(Address::Unix(socket), ConnectOptions::default())
                    .await
                    .map_err(|_| err)
            }
            Err(err) => Err(err),
        }
    }

    /// Connects to a store served by `tinystore serve` at `address`:
    /// `unix:PATH`, `tcp://HOST:PORT`, a socket's path, or a served store
    /// directory. Fails with `unavailable` when it cannot be reached.
    pub async fn connect(address: &str) -> Result<Store> {
        Store::connect_with(address, ConnectOptions::default()).await
    }

    /// `connect` with options, such as the token a TCP server asks for.
    /// An `etcd://` address goes to [`Store::connect_etcd`] (the options do
    /// not apply to it).
    pub async fn connect_with(address: &str, options: ConnectOptions) -> Result<Store> {
        if address.starts_with("etcd://") {
            return Store::connect_etcd(address).await;
        }
        Store::connect_to(Address::parse(address)?, options).await
    }

    /// Opens the store kept on etcd at
    /// `etcd://HOST:PORT[,HOST:PORT...]/PREFIX` (docs/etcd.md). Fails with
    /// `unavailable` when no member answers, and with `invalid` when this
    /// build lacks the cargo feature `etcd`.
    pub async fn connect_etcd(address: &str) -> Result<Store> {
        #[cfg(feature = "etcd")]
        {
            let etcd = crate::etcd::open(address).await?;
            Ok(Store {
                backend: Arc::new(etcd),
            })
        }
        #[cfg(not(feature = "etcd"))]
        {
            Err(crate::error::Error::invalid(format!(
                "address {address:?} needs etcd support, which this build of tinystore lacks: \
                 build it with the cargo feature `etcd`"
            )))
        }
    }

    /// `connect` to an address already parsed.
    pub async fn connect_to(address: Address, options: ConnectOptions) -> Result<Store> {
        let remote = Remote::connect(address, options).await?;
        Ok(Store {
            backend: Arc::new(remote),
        })
    }

    /// The group of exclusive locks called `name`. The name is checked at
    /// the first acquire: 1 to 128 bytes of `A-Z a-z 0-9 . _ - :`.
    pub fn locks(&self, name: &str) -> Locks {
        Locks::new(Group::new(self.backend.clone(), name, None))
    }

    /// The group of semaphores called `name`, each key allowing `limit`
    /// holders at once.
    pub fn semaphore(&self, name: &str, limit: u32) -> Semaphore {
        Semaphore::new(Group::new(self.backend.clone(), name, Some(limit)))
    }

    /// The epoch, the fences given, the held keys and the waiters.
    pub async fn status(&self) -> Result<Status> {
        self.backend.status().await
    }

    /// Writes a consistent copy of `kv.db` to `dest` while the store runs.
    pub async fn backup(&self, dest: impl AsRef<Path>) -> Result<()> {
        self.backend.backup(dest.as_ref()).await
    }

    /// Releases every lease (their holders learn they lost them), fails every
    /// waiter with `closed`, and marks `kv.db` closed cleanly. Idempotent.
    pub async fn close(&self) -> Result<()> {
        self.backend.close().await
    }
}

/// Restores a backup into the store directory `dir`, which no process may
/// have open. The restored store opens with max(now, backed-up epoch + 1).
pub fn restore(backup: impl AsRef<Path>, dir: impl AsRef<Path>) -> Result<()> {
    crate::disk::restore(backup.as_ref(), dir.as_ref())
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}
