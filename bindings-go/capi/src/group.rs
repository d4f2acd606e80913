//! `TsGroup`: a `Locks` or `Semaphore` group of a store, one side (read
//! or write) of an `RwLocks` group, or an `Election` (which campaigns with
//! `ts_election_campaign`), and `TsOptions`.

use crate::acquiring::{one, put_started, TsAcquire};
use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::lease::{put_grant, put_no_grant, Held, TsGrant};
use crate::runtime::block_on;
use crate::store::TsStore;
use crate::text::{bytes, free_handle, handle, put_handle, utf8};
use tinystore::binding::{Acquiring, GivenOptions, TimeUnit};
use tinystore::Options;

/// The options of a group or a call, as text: one `name=value` line each,
/// named as the core names them (`ttl`, `wait`, `renew`, `max_hold`,
/// `weight`, `data`), a duration in nanoseconds, a count in decimal, a
/// boolean as `true` or `false`, a text (`data`) as its bytes with `%`,
/// line feed and carriage return written `%25`, `%0A` and `%0D`. An
/// option not given keeps the group's value, or else the core's default;
/// `lines_len` 0 gives none. The core checks the names and the values.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TsOptions {
    pub lines: *const u8,
    pub lines_len: usize,
}

impl TsOptions {
    /// The core's options for these lines.
    ///
    /// # Safety
    /// `lines` points to `lines_len` readable bytes, or `lines_len` is 0.
    pub(crate) unsafe fn read(self) -> Outcome<Options> {
        // SAFETY: forwarded from the caller.
        let lines = unsafe { bytes(self.lines, self.lines_len) };
        Ok(Options::from_lines(lines, TimeUnit::Nanos)?)
    }
}

/// A group of exclusive locks or of semaphores, the read or write side of
/// a group of read-write locks, or an election.
pub enum TsGroup {
    Locks(tinystore::Locks),
    Semaphore(tinystore::Semaphore),
    Election(tinystore::Election),
    RwRead(tinystore::RwLocks),
    RwWrite(tinystore::RwLocks),
}

/// Which kind of group `ts_store_group` makes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsGroupKind {
    /// Exclusive locks, whose leases carry fences; `limit` is ignored.
    Locks = 0,
    /// Semaphores of `limit` holders per key, whose permits have no fence.
    Semaphore = 1,
    /// An election: `ts_election_campaign` campaigns with a value and
    /// grants a leadership whose fence is the term; it has no key to
    /// acquire. `limit` is ignored.
    Election = 2,
    /// The read side of read-write locks: its acquires share a key with
    /// other readers, after every writer that came first, and grant
    /// permits (no fence); `limit` is ignored.
    RwRead = 3,
    /// The write side of read-write locks: its acquires hold a key alone
    /// and grant leases with fences; `limit` is ignored. Both sides of one
    /// name are the same locks.
    RwWrite = 4,
}

/// Makes the group called (`name`, `name_len`) of `kind`, with `options`,
/// and writes a new handle to `*out`. The name (and a semaphore's limit) is
/// checked at the first acquire.
///
/// # Safety
/// `store` is a live handle; `name` points to `name_len` readable bytes;
/// `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_store_group(
    store: *const TsStore,
    name: *const u8,
    name_len: usize,
    kind: TsGroupKind,
    limit: u32,
    options: TsOptions,
    out: *mut *mut TsGroup,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let store = handle(store, "store")?;
            let name = utf8(name, name_len, "name")?;
            let options = options.read()?;
            let group = match kind {
                TsGroupKind::Locks => TsGroup::Locks(store.store.locks(name).with(options)),
                TsGroupKind::Semaphore => {
                    TsGroup::Semaphore(store.store.semaphore(name, limit).with(options))
                }
                TsGroupKind::Election => {
                    TsGroup::Election(store.store.election(name).with(options))
                }
                TsGroupKind::RwRead => TsGroup::RwRead(store.store.rw_locks(name).with(options)),
                TsGroupKind::RwWrite => TsGroup::RwWrite(store.store.rw_locks(name).with(options)),
            };
            put_handle(out, group, "group")
        })
    }
}

/// The acquire of `key` in `group`, not polled yet: `acquire::start` polls
/// it. An election has no key: it campaigns (`ts_election_campaign`).
fn acquiring(group: &TsGroup, key: String, options: Options) -> Outcome<Acquiring<Vec<Held>>> {
    match group {
        TsGroup::Locks(locks) => {
            let locks = locks.clone();
            Ok(one(async move {
                locks.acquire_with(key, options).await.map(Held::lease)
            }))
        }
        TsGroup::Semaphore(semaphore) => {
            let semaphore = semaphore.clone();
            Ok(one(async move {
                semaphore.acquire_with(key, options).await.map(Held::permit)
            }))
        }
        TsGroup::RwRead(rw) => {
            let rw = rw.clone();
            Ok(one(async move {
                rw.acquire_read_with(key, options).await.map(Held::permit)
            }))
        }
        TsGroup::RwWrite(rw) => {
            let rw = rw.clone();
            Ok(one(async move {
                rw.acquire_write_with(key, options).await.map(Held::lease)
            }))
        }
        TsGroup::Election(e) => Err(Failure::new(
            TsCode::Invalid,
            format!(
                "election {} has no key to acquire: it campaigns with a value",
                e.name()
            ),
        )),
    }
}

/// Starts acquiring the key (`key`, `key_len`) with per-call `options`.
/// When the key is granted at once, writes its grant to `*out_grant`
/// (the loss of the lease reported with `token`, as `ts_done_take` gives
/// it) and NULL to `*out_acquire`; otherwise writes an empty grant and a
/// new `TsAcquire` to `*out_acquire`: wait for it with `ts_acquire_wait`
/// and take it with `ts_acquire_take`, or give it up meanwhile with
/// `ts_acquire_cancel` or `ts_acquire_free`.
///
/// # Safety
/// `group` is a live handle; `key` points to `key_len` readable bytes;
/// `out_grant`, `out_acquire` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_group_acquire(
    group: *const TsGroup,
    key: *const u8,
    key_len: usize,
    options: TsOptions,
    token: u64,
    out_grant: *mut TsGrant,
    out_acquire: *mut *mut TsAcquire,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let group = handle(group, "group")?;
            let key = utf8(key, key_len, "key")?.to_owned();
            put_started(
                acquiring(group, key, options.read()?)?,
                &[token],
                out_grant,
                out_acquire,
            )
        })
    }
}

/// Takes the key (`key`, `key_len`) if it is free now: writes its grant to
/// `*out_grant` (its loss reported with `token`), or an empty grant when
/// the key is taken.
///
/// # Safety
/// As for `ts_group_acquire`.
#[no_mangle]
pub unsafe extern "C" fn ts_group_try_acquire(
    group: *const TsGroup,
    key: *const u8,
    key_len: usize,
    options: TsOptions,
    token: u64,
    out_grant: *mut TsGrant,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let group = handle(group, "group")?;
            let key = utf8(key, key_len, "key")?;
            put_no_grant(out_grant)?;
            let options = options.read()?;
            let held = match group {
                TsGroup::Locks(l) => block_on(l.try_acquire_with(key, options))??.map(Held::lease),
                TsGroup::Semaphore(s) => {
                    block_on(s.try_acquire_with(key, options))??.map(Held::permit)
                }
                TsGroup::RwRead(rw) => {
                    block_on(rw.try_acquire_read_with(key, options))??.map(Held::permit)
                }
                TsGroup::RwWrite(rw) => {
                    block_on(rw.try_acquire_write_with(key, options))??.map(Held::lease)
                }
                TsGroup::Election(e) => {
                    return Err(Failure::new(
                        TsCode::Invalid,
                        format!("election {} has no try-acquire: a campaign waits", e.name()),
                    ))
                }
            };
            match held {
                Some(held) => put_grant(out_grant, held, token),
                None => Ok(()),
            }
        })
    }
}

/// Frees the group handle; leases it gave stay held. NULL is ignored.
///
/// # Safety
/// `group` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_group_free(group: *mut TsGroup) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { free_handle(group) })
}
