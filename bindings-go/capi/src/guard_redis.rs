//! The Redis guard's machine (the core's `RedisCheck`) for the Go side:
//! one guarded write of a fence to a data key, as `SET`, `DEL`, `HSET` or
//! the caller's own Lua body behind the check. Its one step is
//! `TS_STEP_KIND_EVAL` (the script, its `KEYS` and `ARGV`), which the Go
//! side runs through its client's script helper and answers with
//! `TS_OBSERVED_REPLY` or `TS_OBSERVED_FAILED`; a key, value, field, key
//! or argument that is not UTF-8 is `TS_CODE_INVALID`, naming it, before
//! any call.

use crate::error::{call, Outcome, TsError};
use crate::fence::TsFence;
use crate::guard_machine::{made, text, Machine, TsGuardMachine};
use crate::guard_observed::{TsPair, TsText};
use crate::guard_step::TsGuardStep;
use crate::text::slice;
use tinystore::guard::redis_check::{RedisCheck, RedisWrite};
use tinystore::Fence;

/// The UTF-8 texts of the `len` texts at `texts`.
///
/// # Safety
/// `texts` points to `len` readable `TsText`s, each pointing to its
/// length's readable bytes.
unsafe fn texts(texts: *const TsText, len: usize, what: &str) -> Outcome<Vec<String>> {
    // SAFETY: forwarded from the caller.
    unsafe {
        slice(texts, len, what)?
            .iter()
            .map(|t| text(t.ptr, t.len, what).map(str::to_string))
            .collect()
    }
}

/// Makes the machine of `write` to `key` with `fence`.
///
/// # Safety
/// `key` points to `key_len` readable bytes; `out`, `first` and `err` are
/// writable.
unsafe fn redis_new(
    key: *const u8,
    key_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
    write: impl FnOnce() -> Outcome<RedisWrite>,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let key = text(key, key_len, "Redis key")?;
            let check = RedisCheck::new(key, Fence::from(fence), write()?);
            made(out, first, Machine::Redis(check))
        })
    }
}

/// Makes a guarded `SET key value` with `fence`.
///
/// # Safety
/// The texts point to their lengths' readable bytes; `out`, `first` and
/// `err` are writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_redis_set_new(
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        redis_new(key, key_len, fence, out, first, err, || {
            Ok(RedisWrite::Set(
                text(value, value_len, "Redis value")?.to_string(),
            ))
        })
    }
}

/// Makes a guarded `DEL key` with `fence`; the fence stays recorded.
///
/// # Safety
/// `key` points to `key_len` readable bytes; `out`, `first` and `err` are
/// writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_redis_del_new(
    key: *const u8,
    key_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { redis_new(key, key_len, fence, out, first, err, || Ok(RedisWrite::Del)) }
}

/// Makes a guarded `HSET key field value ...` of the `fields_len` pairs at
/// `fields`, in order, with `fence`.
///
/// # Safety
/// `key` and `fields` point to their lengths' readable values, each pair's
/// texts to their lengths' readable bytes; `out`, `first` and `err` are
/// writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_redis_hset_new(
    key: *const u8,
    key_len: usize,
    fields: *const TsPair,
    fields_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        redis_new(key, key_len, fence, out, first, err, || {
            let mut pairs = Vec::with_capacity(fields_len);
            for pair in slice(fields, fields_len, "Redis hash fields")? {
                let field = text(pair.key.ptr, pair.key.len, "Redis hash field")?;
                let value = text(pair.value.ptr, pair.value.len, "Redis hash value")?;
                pairs.push((field.to_string(), value.to_string()));
            }
            Ok(RedisWrite::HSet(pairs))
        })
    }
}

/// Makes a guarded run of the caller's Lua `body` with `fence`: `KEYS` the
/// data key then the `keys_len` texts at `keys` (one hash slot), `ARGV`
/// the `args_len` texts at `args`. Accepted, the script's reply is
/// `{"accepted", the body's reply}`.
///
/// # Safety
/// The texts and arrays point to their lengths' readable values; `out`,
/// `first` and `err` are writable; `first` is written with the first step.
#[no_mangle]
pub unsafe extern "C" fn ts_guard_redis_script_new(
    key: *const u8,
    key_len: usize,
    body: *const u8,
    body_len: usize,
    keys: *const TsText,
    keys_len: usize,
    args: *const TsText,
    args_len: usize,
    fence: TsFence,
    out: *mut *mut TsGuardMachine,
    first: *mut TsGuardStep,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        redis_new(key, key_len, fence, out, first, err, || {
            Ok(RedisWrite::Script {
                body: text(body, body_len, "Lua script")?.to_string(),
                keys: texts(keys, keys_len, "Redis key")?,
                args: texts(args, args_len, "script argument")?,
            })
        })
    }
}
