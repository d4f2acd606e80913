//! This machine's host name, for the data a lease carries when its holder
//! attaches none: `gethostname` on Unix; the `COMPUTERNAME` variable on
//! Windows. `unknown` when the system gives none (or none in UTF-8).

/// The host name, or `unknown`.
pub(crate) fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`,
        // which lives for the call.
        let got = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if got == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            if let Ok(name) = std::str::from_utf8(&buf[..end]) {
                if !name.is_empty() {
                    return name.to_string();
                }
            }
        }
        "unknown".to_string()
    }
    #[cfg(not(unix))]
    {
        std::env::var("COMPUTERNAME")
            .ok()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "unknown".to_string())
    }
}
