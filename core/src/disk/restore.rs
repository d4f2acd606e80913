//! `restore`: puts a backup in place as a store's `kv.db`.

use super::kvdb::KvDb;
use super::layout::{make_dir, KV_DB};
use super::owner::Owner;
use crate::error::{Code, Error, Result};
use std::path::Path;

/// Restores a backup made by `backup` into the store directory `dir`, which
/// must not be open. `DIR/EPOCH` is kept, so the restored store opens with
/// max(now, backed-up epoch + 1, last epoch of `dir` + 1).
pub(crate) fn restore(backup: &Path, dir: &Path) -> Result<()> {
    make_dir(dir)?;
    let _owner = Owner::take(dir)?;
    let staged = dir.join("kv.db.restoring");
    std::fs::copy(backup, &staged).map_err(|e| {
        Error::io(
            format!("cannot copy {} to {}", backup.display(), staged.display()),
            e,
        )
    })?;
    let checked = KvDb::open_read_only(&staged).and_then(|db| db.left());
    if let Err(err) = checked {
        let _ = std::fs::remove_file(&staged);
        if err.code() == Code::Io {
            return Err(err);
        }
        return Err(Error::new(
            Code::Corrupt,
            format!(
                "{} is not a tinystore backup (a SQLite file with tinystore's meta table and an epoch)",
                backup.display()
            ),
        ));
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
        .and_then(|_| crate::os::sync_dir::sync_dir(dir))
        .map_err(|e| Error::io(format!("cannot put {} in place", dest.display()), e))
}
