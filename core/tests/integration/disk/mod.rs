//! The store directory on disk (core/src/disk): kv.db, the epoch, one
//! owner, backups, and a full disk.

mod faults;
mod store;
