//! Backups: a destination is never one of the store's own files, and a
//! store nobody owns is copied read-only, under its owner lock, without
//! opening it (no epoch written, the clean mark left as it is).

use super::kvdb::KvDb;
use super::layout::{find, no_store, Found, KV_DB, OWN_FILES};
use super::owner::Owner;
use crate::error::{Code, Error, Result};
use std::path::{Path, PathBuf};

/// Refuses with `invalid` a `dest` that is one of the files of the store in
/// `dir` (`kv.db`, its `-wal` and `-shm`, `LOCK`, `EPOCH`, the socket),
/// whether named directly, through `..`, or through a symbolic link.
pub(crate) fn check_backup_dest(dir: &Path, dest: &Path) -> Result<()> {
    let target = resolve(dest);
    let store = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for name in OWN_FILES {
        let own = store.join(name);
        if target == own || crate::os::same_file::same_file(&target, &own) {
            return Err(Error::new(
                Code::Invalid,
                format!(
                    "cannot back up to {}: it is the store's own {}; give a path outside the store",
                    dest.display(),
                    own.display()
                ),
            ));
        }
    }
    Ok(())
}

/// `path` with its symbolic links followed and its directory made canonical,
/// even when the file itself does not exist yet.
fn resolve(path: &Path) -> PathBuf {
    let mut path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(&path) {
                Ok(link) => {
                    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
                    path = base.join(link);
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => match parent.canonicalize() {
            Ok(parent) => parent.join(name),
            Err(_) => path,
        },
        _ => path.canonicalize().unwrap_or(path),
    }
}

/// Writes a consistent copy of the `kv.db` of the store in `dir`, which no
/// process may own, to `dest`. Takes the owner lock while it reads, so no
/// owner can start meanwhile, and writes nothing into `kv.db`. Fails with
/// `invalid` when `dir` holds no store, `in_use` when a process owns it.
pub fn backup_unowned(dir: &Path, dest: &Path) -> Result<()> {
    if find(dir)? != Found::Store {
        return Err(no_store(dir));
    }
    check_backup_dest(dir, dest)?;
    let _owner = Owner::take(dir)?;
    KvDb::open_read_only(&dir.join(KV_DB))?.backup(dest)
}
