//! The process's limit on open files, which a full server needs room
//! under: `RLIMIT_NOFILE` (getrlimit, setrlimit) on Unix. Windows has no
//! such limit per process (its handles are bounded by memory): there the
//! limit is unknown and raising it does nothing.

/// The soft limit on open files, if the system has one.
pub(crate) fn limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit on this process, with a valid struct.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        #[allow(clippy::useless_conversion)] // rlim_t is u64 on most Unix systems, not all
        Some(u64::from(limit.rlim_cur))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Raises the soft limit on open files to `wanted` if it is lower, or to
/// the hard limit if that is lower still; nothing where there is no limit.
pub(crate) fn raise_to(wanted: u64) {
    #[cfg(unix)]
    {
        let wanted = libc::rlim_t::try_from(wanted).unwrap_or(libc::rlim_t::MAX);
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit on this process, with a valid struct.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 || limit.rlim_cur >= wanted {
                return;
            }
            limit.rlim_cur = wanted.min(limit.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = wanted;
    }
}
