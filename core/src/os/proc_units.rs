//! The units of the process's figures in /proc: clock ticks per second and
//! the page size, from `sysconf` on Unix. Elsewhere (Windows) there is no
//! /proc and no `sysconf`: none, and the server's process metrics stay
//! unset there.

/// Clock ticks per second and bytes per page, if the system tells them.
pub(crate) fn ticks_and_page() -> Option<(i64, i64)> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads values.
        let (ticks, page) = unsafe {
            (
                libc::sysconf(libc::_SC_CLK_TCK),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        #[allow(clippy::useless_conversion)] // c_long is i64 on 64-bit Unix, i32 on 32-bit
        Some((i64::from(ticks), i64::from(page)))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
