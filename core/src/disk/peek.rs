//! A look at a store directory that nobody serves, without opening it: no
//! ownership taken, no epoch written, nothing made. What `tinystore status
//! DIR` shows when DIR is not served.

use super::kvdb::KvDb;
use super::KV_DB;
use crate::error::{Code, Error, Result};
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
    /// open then waits out a grace before its first grant).
    pub closed_cleanly: bool,
}

/// Reads the epoch and the clean flag from `DIR/kv.db` without opening the
/// store. Fails with `invalid` when `dir` has no `kv.db`, and with an error
/// naming `kv.db` (`corrupt`, `io`) when it cannot be read.
pub fn peek(dir: &Path) -> Result<Unserved> {
    let path = dir.join(KV_DB);
    if !path.is_file() {
        return Err(Error::new(
            Code::Invalid,
            format!(
                "{} is not a tinystore store: it has no {KV_DB}",
                dir.display()
            ),
        ));
    }
    let db = KvDb::open_read_only(&path)?;
    Ok(Unserved {
        dir: dir.to_path_buf(),
        last_epoch: db.epoch()?,
        closed_cleanly: db.was_clean()?,
    })
}
