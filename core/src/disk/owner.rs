//! The one-owner rule: the process that opens a store holds an OS lock on
//! `DIR/LOCK`, which the kernel releases when the process dies.

use super::layout::LOCK;
use crate::error::{Code, Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Ownership of a store directory, held while this value lives.
#[derive(Debug)]
pub(super) struct Owner {
    _file: File,
}

impl Owner {
    /// Takes the lock on `DIR/LOCK` and writes this process's pid into it;
    /// fails with `in_use`, naming the owner's pid, when another holds it.
    pub(super) fn take(dir: &Path) -> Result<Owner> {
        let path = dir.join(LOCK);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?;
        match crate::os::file_lock::try_lock(&file) {
            Ok(true) => {}
            Ok(false) => {
                let pid = read_pid(&mut file).map_or("unknown".to_string(), |p| p.to_string());
                return Err(Error::new(
                    Code::InUse,
                    format!(
                        "store {dir} is owned by process {pid} and is not served; \
                         to share it between processes, serve it \
                         (`tinystore serve {dir}`, or `tinystore.serve(dir)` in a program) \
                         and open it from each of them",
                        dir = dir.display()
                    ),
                ));
            }
            Err(err) => return Err(Error::io(format!("cannot lock {}", path.display()), err)),
        }
        let written = file
            .set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{}", std::process::id()))
            .and_then(|_| file.flush());
        written.map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
        Ok(Owner { _file: file })
    }
}

/// The pid written in `DIR/LOCK` by its last owner, if any (whether that
/// process still owns the store is for the lock to say).
pub fn owner_pid(dir: &Path) -> Option<u32> {
    read_pid(&mut File::open(dir.join(LOCK)).ok()?)
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}
