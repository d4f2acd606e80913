//! What a store directory holds: the names of its files, whether a
//! directory holds a store, lost one, or holds something else, and the
//! making of a new one (mode 0700 whatever the umask).

use crate::error::{Code, Error, Result};
use crate::os::file_modes;
use std::path::Path;

/// The file name of the database in a store directory.
pub(super) const KV_DB: &str = "kv.db";
/// The file name of the socket a served store listens on.
pub const SOCKET: &str = "tinystore.sock";
/// The owner lock.
pub(super) const LOCK: &str = "LOCK";
/// The second record of the last epoch (see `epoch_file`).
pub(super) const EPOCH: &str = "EPOCH";

/// The files a store directory holds for itself: a backup is never written
/// onto one of them.
pub(super) const OWN_FILES: [&str; 7] = [
    KV_DB,
    "kv.db-wal",
    "kv.db-shm",
    "kv.db-journal",
    LOCK,
    EPOCH,
    SOCKET,
];

/// The files that tell a store lived in a directory, even without `kv.db`.
const TRACES: [&str; 5] = [LOCK, EPOCH, "kv.db-wal", "kv.db-shm", SOCKET];

/// What a directory was found to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// No such directory.
    Missing,
    /// A directory with nothing in it.
    Empty,
    /// A directory with a `kv.db` (not yet checked to be tinystore's).
    Store,
}

/// Looks at `dir`. A directory that once held a store and lost its `kv.db`
/// is `corrupt`; one holding other files and no store is `invalid`.
pub(crate) fn find(dir: &Path) -> Result<Found> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(e) => return Err(Error::io(format!("cannot read store {}", dir.display()), e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry =
            entry.map_err(|e| Error::io(format!("cannot read store {}", dir.display()), e))?;
        names.push(entry.file_name());
    }
    if names.iter().any(|n| n == KV_DB) {
        return Ok(Found::Store);
    }
    if names.is_empty() {
        return Ok(Found::Empty);
    }
    if let Some(trace) = TRACES.iter().find(|t| names.iter().any(|n| n == **t)) {
        let why = format!("it is missing, though {trace} is there");
        return Err(lost(&dir.join(KV_DB), &why));
    }
    Err(Error::new(
        Code::Invalid,
        format!(
            "{} holds no tinystore store (no {KV_DB}) and is not empty; \
             give a new or empty directory to make a store in",
            dir.display()
        ),
    ))
}

/// The error of a command that needs a store where there is none.
pub(crate) fn no_store(dir: &Path) -> Error {
    Error::new(
        Code::Invalid,
        format!(
            "{} holds no tinystore store (no {KV_DB}); start one with `tinystore serve {}`",
            dir.display(),
            dir.display()
        ),
    )
}

/// The error for a store whose `kv.db` (at `file`) was lost or is not
/// tinystore's: `corrupt`, naming the file and the way out.
pub(crate) fn lost(file: &Path, why: &str) -> Error {
    let dir = file.parent().unwrap_or(Path::new("."));
    Error::new(
        Code::Corrupt,
        format!(
            "{}: {why}; the store's database is lost and a new one would not \
             continue its fences: put a backup in place with \
             `tinystore restore BACKUP {}`",
            file.display(),
            dir.display()
        ),
    )
}

/// Makes the store directory (and its missing parents), mode 0700.
pub(crate) fn make_dir(dir: &Path) -> Result<()> {
    let making = |e| Error::io(format!("cannot make store {}", dir.display()), e);
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(making)?;
    }
    match file_modes::make_private_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => return Ok(()),
        Err(e) => return Err(making(e)),
    }
    file_modes::restrict_dir(dir).map_err(making)
}
