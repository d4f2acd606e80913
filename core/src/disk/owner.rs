//! The one-owner rule: the process that opens a store holds an OS lock on
//! `DIR/LOCK`, which the kernel releases when the process dies.
//!
//! A child process being started holds a copy of each of its parent's
//! descriptors from its fork to its exec, and so the lock of a store its
//! parent has just closed: a lock held under this process's own pid on a
//! directory none of its owners holds is such a copy, waited for (up to
//! [`COPY_WAIT`]) rather than called `in_use`.

use super::layout::LOCK;
use crate::error::{Code, Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a lock held by a starting child's copy is waited for.
const COPY_WAIT: Duration = Duration::from_secs(2);

/// The `LOCK` files this process's owners hold, by canonical path.
static OWNED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn owned() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    OWNED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Ownership of a store directory, held while this value lives.
#[derive(Debug)]
pub(super) struct Owner {
    _file: File,
    /// The canonical path of its `LOCK`, in [`OWNED`] while it lives.
    lock: PathBuf,
}

impl Drop for Owner {
    fn drop(&mut self) {
        let mut owned = owned();
        if let Some(at) = owned.iter().position(|p| *p == self.lock) {
            owned.swap_remove(at);
        }
    }
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
        let lock = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let copy_gone_by = Instant::now() + COPY_WAIT;
        loop {
            match crate::os::file_lock::try_lock(&file) {
                Ok(true) => break,
                Ok(false) => {
                    let pid = read_pid(&mut file);
                    let a_copy = pid == Some(std::process::id()) && !owned().contains(&lock);
                    if a_copy && Instant::now() < copy_gone_by {
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    }
                    return Err(in_use(dir, pid));
                }
                Err(err) => return Err(Error::io(format!("cannot lock {}", path.display()), err)),
            }
        }
        let written = file
            .set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{}", std::process::id()))
            .and_then(|_| file.flush());
        written.map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
        owned().push(lock.clone());
        Ok(Owner { _file: file, lock })
    }
}

/// The error of a store directory `dir` owned by process `pid`.
fn in_use(dir: &Path, pid: Option<u32>) -> Error {
    let pid = pid.map_or("unknown".to_string(), |p| p.to_string());
    Error::new(
        Code::InUse,
        format!(
            "store {dir} is owned by process {pid} and is not served; \
             to share it between processes, serve it \
             (`tinystore serve {dir}`, or `tinystore.serve(dir)` in a program) \
             and open it from each of them",
            dir = dir.display()
        ),
    )
}

/// The pid written in `DIR/LOCK` by its last owner, if any (whether that
/// process still owns the store is for the lock to say).
pub fn owner_pid(dir: &Path) -> Option<u32> {
    read_pid(&mut File::open(dir.join(LOCK)).ok()?)
}

fn read_pid(file: &mut File) -> Option<u32> {
    file.seek(SeekFrom::Start(0)).ok()?;
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}
