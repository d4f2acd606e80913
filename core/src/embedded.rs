//! A store owned by this process: a directory on disk and a lock engine.

use crate::backend::Backend;
use crate::disk::Disk;
use crate::election::{Leader, Observer};
use crate::engine::{Audit, Engine};
use crate::error::{Error, Result};
use crate::options::DEFAULT_TTL;
use crate::status::{Status, StatusPage};
use crate::store_options::StoreOptions;
use crate::vocab::{EngineGrant, Grant, LeaseId};
use crate::vocab::{KeyId, Request};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// An open store owned by this process.
pub(crate) struct Embedded {
    engine: Arc<Engine>,
    dir: PathBuf,
    disk: Mutex<Option<Disk>>,
    #[cfg(feature = "otel")]
    tracer: crate::otel::StoreTracer,
}

impl Embedded {
    /// Takes ownership of `dir`, writes the new epoch, and starts the engine.
    /// When the store was served and its last stop was not clean, the engine
    /// grants nothing for a grace: that of `options`, else the one its last
    /// server recorded, else the default TTL.
    pub(crate) fn open(dir: &Path, options: &StoreOptions) -> Result<Embedded> {
        let disk = Disk::open(dir, options.clock.as_ref(), options.create)?;
        let grace = disk.owes_grace().then(|| {
            options
                .grace
                .or(disk.recorded_grace())
                .unwrap_or(DEFAULT_TTL)
        });
        let audit = options.audit.as_deref().map(Audit::open).transpose()?;
        let engine = Engine::new(disk.epoch(), grace, audit, options.testing);
        Ok(Embedded {
            engine,
            dir: dir.to_path_buf(),
            disk: Mutex::new(Some(disk)),
            #[cfg(feature = "otel")]
            tracer: crate::otel::StoreTracer::global(),
        })
    }

    /// The lock engine, for the server.
    pub(crate) fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    fn disk(&self) -> std::sync::MutexGuard<'_, Option<Disk>> {
        self.disk.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn closed_error(&self) -> Error {
        Error::store_closed(self.dir.display())
    }

    /// Marks `kv.db` served (durably), with the grace a next owner waits
    /// after an unclean stop. Called before the first client is accepted.
    pub(crate) fn mark_served(&self, grace: std::time::Duration) -> Result<()> {
        match self.disk().as_ref() {
            Some(disk) => disk.mark_served(grace),
            None => Err(self.closed_error()),
        }
    }

    /// Closes the engine and gives up the directory, marking `kv.db` clean
    /// unless a grace owed after an unclean stop has not passed yet: then the
    /// mark stays, and the next owner waits the grace in turn.
    pub(crate) fn close_now(&self) -> Result<()> {
        self.engine.close(self.closed_error());
        match self.disk().take() {
            Some(disk) if self.engine.grace_passed() => disk.mark_clean(),
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl Backend for Embedded {
    #[cfg(feature = "otel")]
    fn tracer(&self) -> &crate::otel::StoreTracer {
        &self.tracer
    }

    async fn acquire(&self, request: Request) -> Result<Grant> {
        let waiting = self.engine.acquire(request.clone());
        with_signal(request.within_wait(waiting).await?)
    }

    async fn try_acquire(&self, request: Request) -> Result<Option<Grant>> {
        self.engine
            .try_acquire(&request)?
            .map(with_signal)
            .transpose()
    }

    async fn renew(&self, id: LeaseId) -> Result<()> {
        self.engine.renew(id)
    }

    async fn release(&self, id: LeaseId) -> Result<()> {
        self.engine.release(id)
    }

    fn release_on_drop(&self, id: LeaseId) {
        let _ = self.engine.release(id);
    }

    fn refused(&self, key: &KeyId, _resource: &str) {
        self.engine.refused(key.group_kind(), key.name());
    }

    async fn status(&self, page: StatusPage) -> Result<Status> {
        Ok(self.engine.status(page))
    }

    async fn backup(&self, dest: &Path) -> Result<()> {
        match self.disk().as_ref() {
            Some(disk) => disk.backup(dest),
            None => Err(self.closed_error()),
        }
    }

    async fn leader(&self, name: &str) -> Result<Option<Leader>> {
        self.engine.leader(name)
    }

    async fn observe(&self, name: &str) -> Result<Observer> {
        self.engine.observe(name)
    }

    async fn watch(
        &self,
        kind: crate::vocab::GroupKind,
        name: &str,
        key: Option<String>,
    ) -> Result<crate::watch::Watch> {
        self.engine.watch(kind, name, key)
    }

    async fn close(&self) -> Result<()> {
        self.close_now()
    }

    async fn advance(&self, by: std::time::Duration) -> Result<()> {
        self.engine.advance(by)
    }

    async fn expire(&self, id: LeaseId) -> Result<()> {
        self.engine.expire(id)
    }

    async fn expire_key(&self, name: &str, key: &str) -> Result<usize> {
        self.engine.expire_key(name, key)
    }
}

/// A grant of a request made with `LostTo::Watch` (as every request from
/// `Locks` and `Semaphore` is), with its signal.
fn with_signal(granted: EngineGrant) -> Result<Grant> {
    match granted.lost {
        Some(lost) => Ok(Grant {
            id: granted.id,
            fence: granted.fence,
            lost,
        }),
        None => Err(Error::internal(
            "an embedded grant came without its lost signal",
        )),
    }
}

impl Drop for Embedded {
    fn drop(&mut self) {
        let _ = self.close_now();
    }
}
