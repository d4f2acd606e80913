//! What an election adds to a group (`TsGroupKind::Election`):
//! `ts_election_campaign`, an acquire of the leadership with the
//! candidate's value; `ts_election_leader`, the leader now; and
//! `TsObserver`, every change of leader (the core's `Observing`), waited
//! for on a caller's thread and closed from any other.

use crate::acquiring::{one, put_started, TsAcquire};
use crate::error::{call, quiet, Failure, Outcome, TsCode, TsError};
use crate::fence::TsFence;
use crate::following::Followed;
use crate::group::{TsGroup, TsOptions};
use crate::lease::{Held, TsGrant};
use crate::runtime::block_on;
use crate::text::{free_handle, handle, put, put_handle, utf8};

/// A leader, or none: its value (`value_len` bytes of UTF-8 the caller
/// owns until `ts_leader_clear`) and its term.
#[repr(C)]
#[derive(Debug)]
pub struct TsLeader {
    /// False when nobody leads (then `value` is NULL).
    pub has_leader: bool,
    pub value: *mut u8,
    pub value_len: usize,
    pub fence: TsFence,
}

impl TsLeader {
    fn none() -> TsLeader {
        TsLeader {
            has_leader: false,
            value: std::ptr::null_mut(),
            value_len: 0,
            fence: TsFence::default(),
        }
    }

    fn of(leader: Option<tinystore::Leader>) -> TsLeader {
        let Some(leader) = leader else {
            return TsLeader::none();
        };
        let value = leader.value.into_bytes().into_boxed_slice();
        let value_len = value.len();
        TsLeader {
            has_leader: true,
            value: Box::into_raw(value).cast(),
            value_len,
            fence: leader.fence.into(),
        }
    }
}

/// The election of a group handle, or an `invalid` failure for a group
/// that is not one.
fn election(group: &TsGroup) -> Outcome<&tinystore::Election> {
    match group {
        TsGroup::Election(election) => Ok(election),
        _ => Err(Failure::new(
            TsCode::Invalid,
            "the group is not an election",
        )),
    }
}

/// Starts campaigning in the election `group` with per-call `options`.
/// `value` (`value_len` bytes of UTF-8, at most 1,024) is the candidate's
/// value: the text the leader is known by, as `ts_election_leader` and
/// observers give it. When nobody leads, writes the leadership's grant to
/// `*out_grant` (its fence the term; its loss reported with `token`, as
/// `ts_done_take` gives it) and NULL to `*out_acquire`; otherwise writes an
/// empty grant and a new `TsAcquire` to `*out_acquire`, waited for, taken
/// and given up as `ts_group_acquire`'s.
///
/// # Safety
/// `group` is a live handle; `value` points to `value_len` readable bytes;
/// `out_grant`, `out_acquire` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_election_campaign(
    group: *const TsGroup,
    value: *const u8,
    value_len: usize,
    options: TsOptions,
    token: u64,
    out_grant: *mut TsGrant,
    out_acquire: *mut *mut TsAcquire,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let election = election(handle(group, "group")?)?.clone();
            let value = utf8(value, value_len, "value")?.to_owned();
            let options = options.read()?;
            let campaigning = one(async move {
                let leadership = election.campaign_with(&value, options).await;
                leadership.map(Held::leadership)
            });
            put_started(campaigning, &[token], out_grant, out_acquire)
        })
    }
}

/// Writes the leader of the election `group` now to `*out` (free it with
/// `ts_leader_clear`). Waits for the reply on a connected store.
///
/// # Safety
/// `group` is a live handle; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_election_leader(
    group: *const TsGroup,
    out: *mut TsLeader,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, TsLeader::none(), "leader")?;
            let election = election(handle(group, "group")?)?;
            let leader = block_on(election.leader())??;
            put(out, TsLeader::of(leader), "leader")
        })
    }
}

/// Frees the value of a leader written by this library and empties it.
/// NULL is ignored.
///
/// # Safety
/// `leader` is NULL or a leader this library wrote, not cleared since.
#[no_mangle]
pub unsafe extern "C" fn ts_leader_clear(leader: *mut TsLeader) {
    quiet((), || {
        // SAFETY: promised by the caller.
        let Some(leader) = (unsafe { leader.as_mut() }) else {
            return;
        };
        if !leader.value.is_null() {
            let raw = std::ptr::slice_from_raw_parts_mut(leader.value, leader.value_len);
            // SAFETY: made by `TsLeader::of` as a boxed slice of this length.
            drop(unsafe { Box::from_raw(raw) });
        }
        *leader = TsLeader::none();
    })
}

/// An observer of an election: the core's `Observing`.
pub struct TsObserver {
    followed: Followed<Option<tinystore::Leader>>,
}

/// Starts observing the election `group` and writes a new handle to
/// `*out`: an embedded store's observer is subscribed on return, so no
/// change made after this call is missed. An observer that failed at once
/// (a closed store) is this call's failure.
///
/// # Safety
/// `group` is a live handle; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_election_observe(
    group: *const TsGroup,
    out: *mut *mut TsObserver,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, std::ptr::null_mut(), "observer")?;
            let election = election(handle(group, "group")?)?;
            let followed =
                Followed::start(|| tinystore::binding::StartCampaign::observing(election))?;
            put_handle(out, TsObserver { followed }, "observer")
        })
    }
}

/// Blocks this thread until the next change of leader and writes it to
/// `*out` (the leader now first, then each change; `has_leader` false
/// when nobody leads; free it with `ts_leader_clear`), and true to
/// `*more`. Once the observer ended (after `ts_observer_close`, or after
/// the one failure that ends it: `TS_CODE_CLOSED` when the store closed,
/// `TS_CODE_LIMIT` when it fell too far behind), writes false to `*more`.
///
/// # Safety
/// `observer` is a live handle; `out`, `more` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_observer_next(
    observer: *const TsObserver,
    out: *mut TsLeader,
    more: *mut bool,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, TsLeader::none(), "leader")?;
            put(more, false, "more")?;
            let observer = handle(observer, "observer")?;
            let Some(change) = observer.followed.next()? else {
                return Ok(());
            };
            put(out, TsLeader::of(change), "leader")?;
            put(more, true, "more")
        })
    }
}

/// Stops observing: a `ts_observer_next` blocked on another thread, and
/// every later one, returns with `*more` false. Idempotent.
///
/// # Safety
/// `observer` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ts_observer_close(observer: *const TsObserver) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        if let Ok(observer) = unsafe { handle(observer, "observer") } {
            observer.followed.close();
        }
    })
}

/// Stops observing and frees the handle. NULL is ignored.
///
/// # Safety
/// `observer` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_observer_free(observer: *mut TsObserver) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { free_handle(observer) })
}
