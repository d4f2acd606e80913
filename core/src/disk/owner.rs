//! The one-owner rule: the process that opens a store holds an OS lock on
//! `DIR/LOCK`, which the kernel releases when the process dies.

use crate::error::{Code, Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::Path;

/// Ownership of a store directory, held while this value lives.
#[derive(Debug)]
pub struct Owner {
    _file: File,
}

impl Owner {
    /// Takes the lock on `DIR/LOCK` and writes this process's pid into it;
    /// fails with `in_use`, naming the owner's pid, when another holds it.
    pub fn take(dir: &Path) -> Result<Owner> {
        let path = dir.join("LOCK");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?;
        // SAFETY: flock on an fd this function owns; no memory is shared.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let pid = pid.trim();
                let pid = if pid.is_empty() { "unknown" } else { pid };
                return Err(Error::new(
                    Code::InUse,
                    format!(
                        "store {} is owned by process {pid} and is not served",
                        dir.display()
                    ),
                ));
            }
            return Err(Error::io(format!("cannot lock {}", path.display()), err));
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
