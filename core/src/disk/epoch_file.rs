//! `DIR/EPOCH`: a second record of the last epoch, beside `kv.db`. Written
//! durably (a new file, fsync, rename, fsync of the directory) each time an
//! open writes its epoch, and read at every open, which takes the larger of
//! the two: a `kv.db` lost, or restored from an older backup, can then never
//! lower the epoch.

use super::layout::EPOCH;
use crate::error::{Code, Error, Result};
use std::io::Write;
use std::path::Path;

/// The epoch kept in `DIR/EPOCH`, if the file exists.
pub(crate) fn read(dir: &Path) -> Result<Option<u64>> {
    let path = dir.join(EPOCH);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("cannot read {}", path.display()), e)),
    };
    text.trim().parse().map(Some).map_err(|_| {
        Error::new(
            Code::Corrupt,
            format!(
                "{}: {:?} is not an epoch (a decimal number); \
                 if kv.db is sound, remove the file and open the store again",
                path.display(),
                text.trim()
            ),
        )
    })
}

/// Writes `epoch` to `DIR/EPOCH` durably.
pub(crate) fn write(dir: &Path, epoch: u64) -> Result<()> {
    let path = dir.join(EPOCH);
    let staged = dir.join(format!("{EPOCH}.new"));
    let written = std::fs::File::create(&staged)
        .and_then(|mut file| {
            writeln!(file, "{epoch}")?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&staged, &path))
        .and_then(|()| crate::os::sync_dir::sync_dir(dir));
    written.map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}
