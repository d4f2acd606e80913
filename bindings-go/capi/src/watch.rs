//! `TsWatcher`: a group's watch (the core's `Watching`), started by
//! `ts_group_watch`, each event waited for on a caller's thread
//! (`ts_watcher_next`) and closed from any other. What an event means and
//! when it comes are the core's.

use crate::error::{call, quiet, Failure, TsCode, TsError};
use crate::fence::TsFence;
use crate::following::Followed;
use crate::group::TsGroup;
use crate::text::{free_handle, handle, put, put_handle, utf8};
use tinystore::binding::StartWatch;

/// The kind of a watch event.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsWatchKind {
    /// A lease or permit was granted: `key`, `fence` (when `has_fence`),
    /// `data` (when `has_data`).
    Granted = 0,
    /// Its holder released it: `key`, `fence` (when `has_fence`).
    Released = 1,
    /// It ended without a release: `key`, `fence` (when `has_fence`),
    /// `cause` (`expired`, `disconnected` or `closed`).
    Lost = 2,
    /// The key's queue is now `length` long: `key`.
    Queue = 3,
    /// The watcher fell behind: `missed` events were dropped.
    Lagged = 4,
}

/// One watch event. Its texts (`key`, `data`, `cause`: UTF-8 of their
/// lengths, NULL when empty or absent) are the caller's until
/// `ts_watch_event_clear`.
#[repr(C)]
#[derive(Debug)]
pub struct TsWatchEvent {
    pub kind: TsWatchKind,
    pub key: *mut u8,
    pub key_len: usize,
    /// False for a permit, a read lease, and kinds without a fence.
    pub has_fence: bool,
    pub fence: TsFence,
    /// False when the holder attached no data (and for kinds without it).
    pub has_data: bool,
    pub data: *mut u8,
    pub data_len: usize,
    pub cause: *mut u8,
    pub cause_len: usize,
    pub length: u64,
    pub missed: u64,
}

/// Owned bytes of `text` for C: (NULL, 0) when empty.
fn owned(text: String) -> (*mut u8, usize) {
    if text.is_empty() {
        return (std::ptr::null_mut(), 0);
    }
    let bytes = text.into_bytes().into_boxed_slice();
    let len = bytes.len();
    (Box::into_raw(bytes).cast(), len)
}

/// Frees bytes made by [`owned`].
///
/// # Safety
/// `ptr` is NULL or came from [`owned`] with `len`, not freed since.
unsafe fn free_owned(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        let raw = std::ptr::slice_from_raw_parts_mut(ptr, len);
        // SAFETY: promised by the caller.
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl TsWatchEvent {
    fn empty() -> TsWatchEvent {
        TsWatchEvent {
            kind: TsWatchKind::Lagged,
            key: std::ptr::null_mut(),
            key_len: 0,
            has_fence: false,
            fence: TsFence::default(),
            has_data: false,
            data: std::ptr::null_mut(),
            data_len: 0,
            cause: std::ptr::null_mut(),
            cause_len: 0,
            length: 0,
            missed: 0,
        }
    }

    fn of(event: tinystore::WatchEvent) -> TsWatchEvent {
        use tinystore::WatchEvent as E;
        let mut out = TsWatchEvent::empty();
        if let Some(key) = event.key() {
            (out.key, out.key_len) = owned(key.to_owned());
        }
        let mut fence = |f: Option<tinystore::Fence>| {
            out.has_fence = f.is_some();
            out.fence = f.map(TsFence::from).unwrap_or_default();
        };
        match event {
            E::Granted { fence: f, data, .. } => {
                fence(f);
                out.kind = TsWatchKind::Granted;
                out.has_data = data.is_some();
                (out.data, out.data_len) = owned(data.unwrap_or_default());
            }
            E::Released { fence: f, .. } => {
                fence(f);
                out.kind = TsWatchKind::Released;
            }
            E::Lost {
                fence: f, cause, ..
            } => {
                fence(f);
                out.kind = TsWatchKind::Lost;
                (out.cause, out.cause_len) = owned(cause);
            }
            E::Queue { length, .. } => {
                out.kind = TsWatchKind::Queue;
                out.length = length;
            }
            E::Lagged { missed } => out.missed = missed,
            _ => {}
        }
        out
    }
}

/// Frees the texts of an event written by this library and empties it.
/// NULL is ignored.
///
/// # Safety
/// `event` is NULL or an event this library wrote, not cleared since.
#[no_mangle]
pub unsafe extern "C" fn ts_watch_event_clear(event: *mut TsWatchEvent) {
    quiet((), || {
        // SAFETY: promised by the caller.
        let Some(event) = (unsafe { event.as_mut() }) else {
            return;
        };
        // SAFETY: each made by `owned` with its length.
        unsafe {
            free_owned(event.key, event.key_len);
            free_owned(event.data, event.data_len);
            free_owned(event.cause, event.cause_len);
        }
        *event = TsWatchEvent::empty();
    })
}

/// A watch of a group's key, or of all its keys.
pub struct TsWatcher {
    followed: Followed<tinystore::WatchEvent>,
}

/// The core's `watching` of a group handle; an election is `invalid`.
fn watching(group: &TsGroup, key: Option<String>) -> Result<tinystore::binding::Watching, Failure> {
    Ok(match group {
        TsGroup::Locks(g) => g.watching(key),
        TsGroup::Semaphore(g) => g.watching(key),
        TsGroup::RwRead(g) | TsGroup::RwWrite(g) => g.watching(key),
        TsGroup::Election(_) => {
            return Err(Failure::new(
                TsCode::Invalid,
                "an election is observed (observe), not watched",
            ))
        }
    })
}

/// Starts watching the key (`key`, `key_len`) of `group`, or every key of
/// it when `all` (then `key` is ignored), and writes a new handle to
/// `*out`: an embedded store's watch is subscribed on return, so no event
/// after this call is missed. A watch that failed at once (a bad key, a
/// closed store) is this call's failure.
///
/// # Safety
/// `group` is a live handle; `key` points to `key_len` readable bytes;
/// `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_group_watch(
    group: *const TsGroup,
    key: *const u8,
    key_len: usize,
    all: bool,
    out: *mut *mut TsWatcher,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, std::ptr::null_mut(), "watcher")?;
            let group = handle(group, "group")?;
            let key = match all {
                true => None,
                false => Some(utf8(key, key_len, "key")?.to_owned()),
            };
            let watching = watching(group, key)?;
            let followed = Followed::start(|| watching)?;
            put_handle(out, TsWatcher { followed }, "watcher")
        })
    }
}

/// Blocks this thread until the next event and writes it to `*out` (free
/// its texts with `ts_watch_event_clear`), and true to `*more`. Once the
/// watch ended (after `ts_watcher_close`, or after the one failure that
/// ends it: `TS_CODE_CLOSED` when the store closed, `TS_CODE_UNAVAILABLE`
/// when its connection broke), writes false to `*more`.
///
/// # Safety
/// `watcher` is a live handle; `out`, `more` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_watcher_next(
    watcher: *const TsWatcher,
    out: *mut TsWatchEvent,
    more: *mut bool,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            put(out, TsWatchEvent::empty(), "event")?;
            put(more, false, "more")?;
            let watcher = handle(watcher, "watcher")?;
            let Some(event) = watcher.followed.next()? else {
                return Ok(());
            };
            put(out, TsWatchEvent::of(event), "event")?;
            put(more, true, "more")
        })
    }
}

/// Stops watching: a `ts_watcher_next` blocked on another thread, and
/// every later one, returns with `*more` false. Idempotent.
///
/// # Safety
/// `watcher` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn ts_watcher_close(watcher: *const TsWatcher) {
    quiet((), || {
        // SAFETY: forwarded from the caller.
        if let Ok(watcher) = unsafe { handle(watcher, "watcher") } {
            watcher.followed.close();
        }
    })
}

/// Stops watching and frees the handle. NULL is ignored.
///
/// # Safety
/// `watcher` is NULL or a live handle that no other call uses now or later.
#[no_mangle]
pub unsafe extern "C" fn ts_watcher_free(watcher: *mut TsWatcher) {
    // SAFETY: forwarded from the caller.
    quiet((), || unsafe { free_handle(watcher) })
}
