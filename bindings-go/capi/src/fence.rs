//! `TsFence` and the core's fence parser and printer.

use crate::error::{call, quiet, TsError};
use crate::text::{bytes, put};
use tinystore::Fence;

/// A fence: `epoch << 64 | count`, compared as that 128-bit number.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TsFence {
    pub epoch: u64,
    pub count: u64,
}

impl From<Fence> for TsFence {
    fn from(fence: Fence) -> TsFence {
        TsFence {
            epoch: fence.epoch(),
            count: fence.count(),
        }
    }
}

impl From<TsFence> for Fence {
    fn from(fence: TsFence) -> Fence {
        Fence::new(fence.epoch, fence.count)
    }
}

/// Parses the decimal (`text`, `text_len`) with the core's parser: ASCII
/// digits only, leading zeros allowed, at most 2^128-1. Fails with
/// `TS_CODE_INVALID`, naming the text, for anything else.
///
/// # Safety
/// `text` points to `text_len` readable bytes; `out` and `err` are writable.
#[no_mangle]
pub unsafe extern "C" fn ts_fence_parse(
    text: *const u8,
    text_len: usize,
    out: *mut TsFence,
    err: *mut TsError,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        call(err, || {
            let text = String::from_utf8_lossy(bytes(text, text_len));
            let fence = Fence::parse(&text)?;
            put(out, fence.into(), "fence")
        })
    }
}

/// Writes the fence's decimal (no padding, at most 39 digits) to `out` and
/// returns its length; returns 0, writing nothing, when `cap` is too small.
///
/// # Safety
/// `out` points to `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ts_fence_decimal(fence: TsFence, out: *mut u8, cap: usize) -> usize {
    quiet(0, || {
        let text = Fence::from(fence).to_string();
        if out.is_null() || text.len() > cap {
            return 0;
        }
        // SAFETY: `text.len() <= cap` bytes, promised writable by the caller.
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), out, text.len()) };
        text.len()
    })
}
