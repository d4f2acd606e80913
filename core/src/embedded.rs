//! A store owned by this process: a directory on disk and a lock engine.

use crate::backend::Backend;
use crate::disk::Disk;
use crate::engine::{Audit, Engine, Grant, Granted, LeaseId, Request};
use crate::error::{Error, Result};
use crate::status::Status;
use crate::store::StoreOptions;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// An open store owned by this process.
pub(crate) struct Embedded {
    engine: Arc<Engine>,
    dir: PathBuf,
    disk: Mutex<Option<Disk>>,
}

impl Embedded {
    /// Takes ownership of `dir`, writes the new epoch, and starts the engine,
    /// with the grace of `options` when the last stop was not clean.
    pub(crate) fn open(dir: &Path, options: &StoreOptions) -> Result<Embedded> {
        let disk = Disk::open(dir, options.clock.as_ref())?;
        let grace = if disk.was_clean() {
            None
        } else {
            options.grace
        };
        let audit = options.audit.as_deref().map(Audit::open).transpose()?;
        let engine = Engine::new(disk.epoch(), grace, audit);
        Ok(Embedded {
            engine,
            dir: dir.to_path_buf(),
            disk: Mutex::new(Some(disk)),
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
        Error::closed(format!("store {} was closed", self.dir.display()))
    }

    /// Closes the engine, marks `kv.db` clean and gives up the directory.
    pub(crate) fn close_now(&self) -> Result<()> {
        self.engine.close(self.closed_error());
        match self.disk().take() {
            Some(disk) => disk.mark_clean(),
            None => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl Backend for Embedded {
    async fn acquire(&self, request: Request) -> Result<Grant> {
        with_signal(self.engine.acquire(request).await?)
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

    async fn status(&self) -> Result<Status> {
        Ok(self.engine.status())
    }

    async fn backup(&self, dest: &Path) -> Result<()> {
        match self.disk().as_ref() {
            Some(disk) => disk.backup(dest),
            None => Err(self.closed_error()),
        }
    }

    async fn close(&self) -> Result<()> {
        self.close_now()
    }
}

/// A grant of a request made with `LostTo::Watch` (as every request from
/// `Locks` and `Semaphore` is), with its signal.
fn with_signal(granted: Granted) -> Result<Grant> {
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
