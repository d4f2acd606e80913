//! Making a directory's entries durable after a rename into it (the epoch
//! file, a restored `kv.db`): on Unix the directory is opened and fsynced.
//! Windows has no fsync of a directory (opening one as a file is refused):
//! there nothing is done, and a rename is as durable as NTFS's journal of
//! its metadata makes it.

use std::path::Path;

/// Flushes `dir`'s entries to disk (on Unix; nothing elsewhere).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
