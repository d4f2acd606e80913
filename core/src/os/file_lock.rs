//! The OS lock on a store's `DIR/LOCK`, which the kernel releases when its
//! process dies: `flock(LOCK_EX | LOCK_NB)` on Unix, and on Windows
//! `LockFileEx(LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY)` on the
//! whole file (both through the standard library's `File::try_lock`).
//!
//! On Windows the lock is mandatory: while one process owns the store,
//! another cannot read `LOCK`, so an `in_use` error there names the owner
//! as "unknown" rather than by its pid.

use std::fs::{File, TryLockError};
use std::io;

/// Takes the lock on `file` without waiting: `Ok(true)` when this process
/// now holds it, `Ok(false)` when another process holds it.
pub(crate) fn try_lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(err)) => Err(err),
    }
}
