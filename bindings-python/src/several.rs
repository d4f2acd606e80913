//! `Locks.acquire_all`: the core's `acquire_all`, several keys of a lock
//! group at once (every key or none), as an awaitable and a sync call. A
//! key list crosses as any iterable of keys but a `str`; the leases come
//! back as a list in the order of the keys.

use crate::acquiring::awaitable;
use crate::args::key_text;
use crate::error::{invalid, to_py};
use crate::lease::Lease;
use crate::runtime::block_on;
use pyo3::prelude::*;
use pyo3::types::PyString;
use tinystore::Options;

/// The texts of `keys`: an iterable of keys (a `str` is one key, not a
/// list of them, so it is `invalid`).
fn key_texts(keys: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if keys.is_instance_of::<PyString>() {
        return Err(invalid(
            "acquire_all takes a list of keys, not a str (write [key] for one key)",
        ));
    }
    keys.try_iter()?.map(|key| key_text(&key?)).collect()
}

fn leases(held: Vec<tinystore::Lease>) -> Vec<Lease> {
    held.into_iter().map(Lease::new).collect()
}

/// `locks.acquire_all(keys)` as an awaitable; cancelling it gives up the
/// wait and releases every key already taken.
pub(crate) fn acquire_all<'py>(
    py: Python<'py>,
    locks: &tinystore::Locks,
    keys: &Bound<'py, PyAny>,
    over: Options,
) -> PyResult<Bound<'py, PyAny>> {
    let (locks, keys) = (locks.clone(), key_texts(keys)?);
    awaitable(py, async move {
        locks.acquire_all(keys, over).await.map(leases)
    })
}

/// `locks.acquire_all(keys)`, waiting with the GIL released.
pub(crate) fn acquire_all_sync(
    py: Python<'_>,
    locks: &tinystore::Locks,
    keys: &Bound<'_, PyAny>,
    over: Options,
) -> PyResult<Vec<Lease>> {
    let keys = key_texts(keys)?;
    let held = block_on(py, locks.acquire_all(keys, over)).map_err(to_py)?;
    Ok(leases(held))
}
