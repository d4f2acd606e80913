//! A store directory on disk: its owner lock, `kv.db`, the second record of
//! its epoch, and the epoch chosen at each open.
//!
//! - [`layout`] names the files and tells what a directory holds.
//! - [`owner`] is the one-owner rule; [`kvdb`] the database; [`epoch_file`]
//!   the second record of the epoch.
//! - [`peek`] reads a store nobody serves; [`backup`] and [`restore`] copy
//!   `kv.db` out and back.

mod backup;
mod epoch_file;
mod kvdb;
mod layout;
mod owner;
mod peek;
mod restore;

pub use backup::backup_unowned;
pub(crate) use backup::check_backup_dest;
pub use layout::SOCKET;
pub use owner::owner_pid;
pub use peek::{peek, Unserved};
pub(crate) use restore::restore;

use crate::clock::Clock;
use crate::error::{Code, Error, Result};
use kvdb::KvDb;
use layout::{find, lost, make_dir, no_store, Found, KV_DB};
use owner::Owner;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// An owned, open store directory.
pub(crate) struct Disk {
    dir: PathBuf,
    db: Mutex<KvDb>,
    epoch: u64,
    owes_grace: bool,
    recorded_grace: Option<Duration>,
    _owner: Owner,
}

impl Disk {
    /// Takes ownership of `dir`, opens `kv.db`, and writes the new epoch,
    /// max(now, previous + 1), durably in `kv.db` and in `DIR/EPOCH`, where
    /// the previous is the larger of the two records.
    ///
    /// Only a missing or empty directory is made into a new store, and only
    /// when `create` is set (mode 0700); otherwise it is `invalid`. A
    /// directory that lost its `kv.db`, or whose `kv.db` is empty or not
    /// tinystore's, is `corrupt` and left as it is.
    pub(crate) fn open(dir: &Path, clock: &dyn Clock, create: bool) -> Result<Disk> {
        let found = find(dir)?;
        match found {
            Found::Missing | Found::Empty if !create => return Err(no_store(dir)),
            Found::Missing => make_dir(dir)?,
            Found::Empty | Found::Store => {}
        }
        let owner = Owner::take(dir)?;
        let path = dir.join(KV_DB);
        let recorded = epoch_file::read(dir)?;
        let (db, epoch, left) = if path.exists() {
            let mut db = KvDb::open(&path)?;
            let left = db.left()?;
            let previous = left.epoch.max(recorded.unwrap_or(0));
            let epoch = next_epoch(clock.now_ms(), Some(previous))?;
            db.begin_epoch(epoch, left.owes_grace())?;
            (db, epoch, Some(left))
        } else if found == Found::Store || recorded.is_some() {
            return Err(lost(&path, "it vanished while the store was opened"));
        } else {
            let epoch = next_epoch(clock.now_ms(), None)?;
            (KvDb::create(&path, epoch)?, epoch, None)
        };
        epoch_file::write(dir, epoch)?;
        Ok(Disk {
            dir: dir.to_path_buf(),
            db: Mutex::new(db),
            epoch,
            owes_grace: left.is_some_and(|l| l.owes_grace()),
            recorded_grace: left.and_then(|l| l.grace),
            _owner: owner,
        })
    }

    /// The epoch of this open.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Whether this owner must wait a grace before its first grant: the
    /// store was served and its last stop was not clean.
    pub(crate) fn owes_grace(&self) -> bool {
        self.owes_grace
    }

    /// The grace the store's last server kept, if one was recorded.
    pub(crate) fn recorded_grace(&self) -> Option<Duration> {
        self.recorded_grace
    }

    fn db(&self) -> std::sync::MutexGuard<'_, KvDb> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks `kv.db` served, with the grace to wait after an unclean stop.
    pub(crate) fn mark_served(&self, grace: Duration) -> Result<()> {
        self.db().mark_served(grace)
    }

    /// Marks `kv.db` closed cleanly.
    pub(crate) fn mark_clean(&self) -> Result<()> {
        self.db().mark_clean()
    }

    /// Writes a consistent copy of `kv.db` to `dest`, which may not be one
    /// of the store's own files.
    pub(crate) fn backup(&self, dest: &Path) -> Result<()> {
        check_backup_dest(&self.dir, dest)?;
        self.db().backup(dest)
    }
}

/// The epoch of a new open: max(now, previous + 1); an error past 2^64-1.
pub(crate) fn next_epoch(now_ms: u64, previous: Option<u64>) -> Result<u64> {
    match previous {
        None => Ok(now_ms),
        Some(prev) => prev
            .checked_add(1)
            .map(|next| next.max(now_ms))
            .ok_or_else(|| Error::new(Code::Limit, "the epoch is used up at 2^64-1")),
    }
}

#[cfg(test)]
mod tests {
    use super::next_epoch;
    use crate::Code;

    #[test]
    fn the_epoch_is_now_or_the_previous_plus_one() {
        assert_eq!(next_epoch(500, None).unwrap(), 500);
        assert_eq!(next_epoch(500, Some(100)).unwrap(), 500);
        assert_eq!(next_epoch(500, Some(500)).unwrap(), 501);
        assert_eq!(next_epoch(0, Some(9_000)).unwrap(), 9_001);
        assert_eq!(
            next_epoch(5, Some(u64::MAX)).unwrap_err().code(),
            Code::Limit
        );
    }
}
