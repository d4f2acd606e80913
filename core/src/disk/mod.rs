//! A store directory on disk: its owner lock, `kv.db`, and the epoch chosen
//! at each open.

mod kvdb;
mod owner;
mod peek;

pub use peek::{peek, Unserved};

use crate::clock::Clock;
use crate::error::{Code, Error, Result};
use kvdb::KvDb;
use owner::Owner;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file name of the database in a store directory.
pub const KV_DB: &str = "kv.db";
/// The file name of the socket a served store listens on.
pub const SOCKET: &str = "tinystore.sock";

/// An owned, open store directory.
pub struct Disk {
    dir: PathBuf,
    db: Mutex<KvDb>,
    epoch: u64,
    was_clean: bool,
    _owner: Owner,
}

impl Disk {
    /// Takes ownership of `dir` (making it if missing), opens `kv.db`, and
    /// writes the new epoch, max(now, previous + 1), durably.
    pub fn open(dir: &Path, clock: &dyn Clock) -> Result<Disk> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("cannot make store {}", dir.display()), e))?;
        let owner = Owner::take(dir)?;
        let mut db = KvDb::open(&dir.join(KV_DB))?;
        let previous = db.epoch()?;
        let was_clean = db.was_clean()?;
        let epoch = next_epoch(clock.now_ms(), previous)?;
        db.begin_epoch(epoch)?;
        Ok(Disk {
            dir: dir.to_path_buf(),
            db: Mutex::new(db),
            epoch,
            was_clean,
            _owner: owner,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The epoch of this open.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Whether the store was closed cleanly before this open.
    pub fn was_clean(&self) -> bool {
        self.was_clean
    }

    fn db(&self) -> std::sync::MutexGuard<'_, KvDb> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks `kv.db` closed cleanly.
    pub fn mark_clean(&self) -> Result<()> {
        self.db().mark_clean()
    }

    /// Writes a consistent copy of `kv.db` to `dest`.
    pub fn backup(&self, dest: &Path) -> Result<()> {
        self.db().backup(dest)
    }
}

/// The epoch of a new open: max(now, previous + 1); an error past 2^64-1.
pub fn next_epoch(now_ms: u64, previous: Option<u64>) -> Result<u64> {
    match previous {
        None => Ok(now_ms),
        Some(prev) => prev
            .checked_add(1)
            .map(|next| next.max(now_ms))
            .ok_or_else(|| Error::new(Code::Limit, "the epoch is used up at 2^64-1")),
    }
}

/// Restores a backup made by `backup` into the store directory `dir`, which
/// must not be open. The restored store opens with max(now, backed-up epoch + 1).
pub fn restore(backup: &Path, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("cannot make store {}", dir.display()), e))?;
    let _owner = Owner::take(dir)?;
    let staged = dir.join("kv.db.restoring");
    std::fs::copy(backup, &staged).map_err(|e| {
        Error::io(
            format!("cannot copy {} to {}", backup.display(), staged.display()),
            e,
        )
    })?;
    let checked = KvDb::open(&staged).and_then(|db| db.epoch());
    match checked {
        Ok(Some(_)) => {}
        Ok(None) => {
            let _ = std::fs::remove_file(&staged);
            return Err(Error::new(
                Code::Corrupt,
                format!(
                    "{} is not a tinystore backup: it has no epoch",
                    backup.display()
                ),
            ));
        }
        Err(err) => {
            let _ = std::fs::remove_file(&staged);
            return Err(err);
        }
    }
    for name in [
        KV_DB,
        "kv.db-wal",
        "kv.db-shm",
        "kv.db.restoring-wal",
        "kv.db.restoring-shm",
    ] {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(format!("cannot remove {}", path.display()), e)),
        }
    }
    let dest = dir.join(KV_DB);
    std::fs::rename(&staged, &dest)
        .and_then(|_| std::fs::File::open(dir)?.sync_all())
        .map_err(|e| Error::io(format!("cannot put {} in place", dest.display()), e))
}
