//! A look at a store directory that nobody serves, without opening it: no
//! ownership taken, no epoch written, nothing made. What `tinystore status
//! DIR` shows when DIR is not served.

use super::epoch_file;
use super::kvdb::KvDb;
use super::layout::{find, no_store, Found, KV_DB};
use crate::error::Result;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What a store directory tells of itself while no server answers for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unserved {
    /// The store's directory.
    pub dir: PathBuf,
    /// The epoch of its last open: the high 64 bits of the fences it gave
    /// then. The next open takes a larger one.
    pub last_epoch: Option<u64>,
    /// Whether that open ended with a clean close; false while a process has
    /// the store open, or after one stopped without closing it (the next
    /// open then waits out a grace before its first grant, if the store was
    /// served).
    pub closed_cleanly: bool,
}

/// Reads the epoch and the clean flag from `DIR/kv.db` (and `DIR/EPOCH`)
/// without opening the store. Fails with `invalid` when `dir` holds no
/// store, with `corrupt` naming `kv.db` when it was lost or is not
/// tinystore's, and with `io` when it cannot be read.
pub fn peek(dir: &Path) -> Result<Unserved> {
    if find(dir)? != Found::Store {
        return Err(no_store(dir));
    }
    let left = KvDb::open_read_only(&dir.join(KV_DB))?.left()?;
    let recorded = epoch_file::read(dir)?;
    Ok(Unserved {
        dir: dir.to_path_buf(),
        last_epoch: Some(left.epoch.max(recorded.unwrap_or(0))),
        closed_cleanly: left.clean,
    })
}
