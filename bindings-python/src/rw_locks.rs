//! `RwLocks`: the core's read-write locks, with async (awaitable) and sync
//! forms of each acquire: a read gives a `Permit` (no fence), a write a
//! `Lease` with its fence. Readers sharing, writers waiting first come
//! first served: all the core's.

use crate::group::group_class;
use crate::lease::{Lease, Permit};
use pyo3::prelude::*;
use pyo3::types::PyDict;

group_class!(
    RwLocks,
    tinystore::RwLocks,
    "A group of read-write locks, one per key: readers share it, a writer holds it alone with a fence.",
    {
        Permit: acquire_read / try_acquire_read, acquire_read_sync / try_acquire_read_sync
            => acquire_read_with / try_acquire_read_with;
        Lease: acquire_write / try_acquire_write, acquire_write_sync / try_acquire_write_sync
            => acquire_write_with / try_acquire_write_with;
    },
    {}
);
