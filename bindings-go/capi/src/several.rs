//! `ts_group_acquire_all`: several keys of a lock group at once (the
//! core's `Locks::acquiring_all`), every key or none, as one `TsAcquire`.

use crate::acquiring::{put_started, TsAcquire};
use crate::error::{call, Failure, Outcome, TsCode, TsError};
use crate::group::{TsGroup, TsOptions};
use crate::lease::{Held, TsGrant};
use crate::text::{handle, slice, utf8};
use tinystore::binding::Acquiring;
use tinystore::Options;

/// The keys packed in `keys`: the i-th is the next `lens[i]` bytes.
fn unpack(keys: &[u8], lens: &[usize]) -> Outcome<Vec<String>> {
    let mut at = 0usize;
    let mut texts = Vec::with_capacity(lens.len());
    for &len in lens {
        let end = at
            .checked_add(len)
            .filter(|&end| end <= keys.len())
            .ok_or_else(|| {
                Failure::new(
                    TsCode::Invalid,
                    "key lengths add up to more than the keys' bytes",
                )
            })?;
        let key = &keys[at..end];
        // SAFETY: `key` is a live slice of `len` bytes.
        texts.push(unsafe { utf8(key.as_ptr(), key.len(), "key") }?.to_owned());
        at = end;
    }
    Ok(texts)
}

/// The acquire of every key of `keys` in the lock group `group`, not
/// polled yet; `invalid` for any other kind of group.
fn acquiring_all(
    group: &TsGroup,
    keys: Vec<String>,
    options: Options,
) -> Outcome<Acquiring<Vec<Held>>> {
    let TsGroup::Locks(locks) = group else {
        return Err(Failure::new(
            TsCode::Invalid,
            "only a group of locks acquires several keys at once",
        ));
    };
    let locks = locks.clone();
    Ok(Acquiring::new(async move {
        let leases = locks.acquire_all(keys, options).await?;
        Ok(leases.into_iter().map(Held::lease).collect())
    }))
}

/// Starts acquiring `n_keys` keys of the lock group `group` at once, every
/// key or none, with per-call `options` (its `wait` covers them all): the
/// keys are packed in (`keys`, `keys_len`), the i-th being the next
/// `key_lens[i]` bytes of UTF-8. The core takes them in one order for every
/// caller, so callers naming overlapping keys in any order never deadlock;
/// it refuses no key, more than 1,024, or a key named twice (`invalid`).
/// When all are granted at once, writes the grant of the i-th key to
/// `out_grants[i]` (its loss reported with `tokens[i]`) and NULL to
/// `*out_acquire`; otherwise writes empty grants and a new `TsAcquire` to
/// `*out_acquire`: wait for it with `ts_acquire_wait` and take it with
/// `ts_acquire_take_all`, or give it up meanwhile with `ts_acquire_cancel`
/// or `ts_acquire_free`, which leaves none of the keys held.
///
/// # Safety
/// `group` is a live handle; `keys` points to `keys_len` readable bytes;
/// `key_lens` and `tokens` point to `n_keys` readable values; `out_grants`
/// points to `n_keys` writable grants; `out_acquire` and `err` are
/// writable.
#[no_mangle]
pub unsafe extern "C" fn ts_group_acquire_all(
    group: *const TsGroup,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    n_keys: usize,
    options: TsOptions,
    tokens: *const u64,
    out_grants: *mut TsGrant,
    out_acquire: *mut *mut TsAcquire,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let group = handle(group, "group")?;
            let packed = crate::text::bytes(keys, keys_len);
            let keys = unpack(packed, slice(key_lens, n_keys, "key lengths")?)?;
            let tokens = slice(tokens, n_keys, "tokens")?;
            put_started(
                acquiring_all(group, keys, options.read()?)?,
                tokens,
                out_grants,
                out_acquire,
            )
        })
    }
}
