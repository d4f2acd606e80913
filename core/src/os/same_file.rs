//! Whether two paths name one file, so that a backup is never written
//! onto the store's own files: on Unix the same device and inode (which
//! sees through hard links). Elsewhere (Windows, whose file ids the
//! standard library does not give) the same canonical path, which sees
//! through symbolic links and `..` but not through a hard link.

use std::path::Path;

/// True when `a` and `b` both exist and are one file.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}
