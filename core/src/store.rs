//! `Store`: an open store, owned by this process or reached over a
//! connection, and the door to its `Locks` and `Semaphore` groups.

use crate::backend::Backend;
use crate::client::{Address, ConnectOptions, Remote};
use crate::embedded::Embedded;
use crate::error::{Code, Result};
use crate::group::Group;
use crate::locks::Locks;
use crate::rw_locks::RwLocks;
use crate::semaphore::Semaphore;
use crate::status::Status;
use crate::store_options::StoreOptions;
use crate::vocab::Ask;
use std::path::Path;
use std::sync::Arc;

/// An open store. Cheap to clone; every clone is the same store.
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn Backend>,
}

impl Store {
    /// Opens the store directory `dir`, making a new store (mode 0700) if the
    /// directory is missing or empty. Fails with `in_use`, naming the owner's
    /// pid, when another process owns it; with `invalid` when the directory
    /// holds other files and no store; with `corrupt` when its `kv.db` was
    /// lost, is empty, or is not tinystore's. After an unclean stop of a
    /// served store, grants nothing until the grace has passed.
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
    /// `unix:PATH`, `tcp://HOST:PORT`, `tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE`
    /// (docs/wire.md, "TLS"), a socket's path, or a served store
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
        Locks::new(Group::new(self.backend.clone(), name, Ask::Lock))
    }

    /// The group of semaphores called `name`, each key allowing `limit`
    /// holders at once.
    pub fn semaphore(&self, name: &str, limit: u32) -> Semaphore {
        Semaphore::new(Group::new(
            self.backend.clone(),
            name,
            Ask::Permit { limit },
        ))
    }

    /// The group of read-write locks called `name`: readers share a key, a
    /// writer holds it alone with a fence, first come first served. Apart
    /// from the lock group and the semaphore of the same name.
    pub fn rw_locks(&self, name: &str) -> RwLocks {
        RwLocks::new(Group::new(self.backend.clone(), name, Ask::Write))
    }

    /// The election called `name`: campaign to lead it, see who leads, or
    /// observe every change of leader. Its name follows the lock names'
    /// rules (checked at the first call); an election and a lock group of
    /// the same name are apart.
    pub fn election(&self, name: &str) -> crate::Election {
        crate::Election::new(self.backend.clone(), name)
    }

    /// The epoch, the fences given, the held keys and the waiters: the
    /// first [`DEFAULT_STATUS_LIMIT`](crate::DEFAULT_STATUS_LIMIT) of each,
    /// with `more` set when there are more.
    pub async fn status(&self) -> Result<Status> {
        self.status_page(crate::StatusPage::default()).await
    }

    /// [`Store::status`] showing the held leases and lines of waiters on
    /// `page`; `invalid` unless its limit is from 1 to
    /// [`MAX_STATUS_LIMIT`](crate::MAX_STATUS_LIMIT).
    pub async fn status_page(&self, page: crate::StatusPage) -> Result<Status> {
        page.check()?;
        self.backend.status(page).await
    }

    /// Writes a consistent copy of `kv.db` to `dest` while the store runs.
    pub async fn backup(&self, dest: impl AsRef<Path>) -> Result<()> {
        self.backend.backup(dest.as_ref()).await
    }

    /// Releases every lease (their holders learn they lost them), fails every
    /// waiter with `closed`, and marks `kv.db` closed cleanly (unless a grace
    /// owed after an unclean stop has not passed: the mark then stays for
    /// the next owner). Idempotent.
    pub async fn close(&self) -> Result<()> {
        self.backend.close().await
    }
}

/// The test kit's controls (see [`crate::testing`]).
impl Store {
    pub(crate) async fn advance(&self, by: std::time::Duration) -> Result<()> {
        self.backend.advance(by).await
    }

    pub(crate) async fn expire_key(&self, name: &str, key: &str) -> Result<usize> {
        crate::names::check_name(name)?;
        crate::names::check_key(name, key)?;
        self.backend.expire_key(name, key).await
    }
}

/// Restores a backup into the store directory `dir`, which no process may
/// have open. The restored store opens with max(now, backed-up epoch + 1,
/// the directory's last epoch + 1) (the last epoch is kept in `DIR/EPOCH`).
pub fn restore(backup: impl AsRef<Path>, dir: impl AsRef<Path>) -> Result<()> {
    crate::disk::restore(backup.as_ref(), dir.as_ref())
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}
