//! Data on a lease: a small text its holder attaches when it acquires
//! (who holds it, for what), kept with the lease, shown by `status`, given
//! to watchers and kept on etcd too. At most [`MAX_DATA_BYTES`] bytes of
//! UTF-8; when the holder attaches none, the client's own `HOST:PID`
//! ([`default_data`]), computed in the process that acquires, never on a
//! server; an empty text attaches nothing.

use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// The most bytes of data a lease may carry: 1 KiB.
pub const MAX_DATA_BYTES: usize = 1024;

/// Checks a lease's data: at most [`MAX_DATA_BYTES`] bytes; `invalid`
/// naming the limit and the size otherwise.
pub(crate) fn check_data(data: &str) -> Result<()> {
    if data.len() > MAX_DATA_BYTES {
        return Err(Error::invalid(format!(
            "data must be at most {MAX_DATA_BYTES} bytes, not {}",
            data.len()
        )));
    }
    Ok(())
}

/// The data of a lease whose holder gave `given`: `given` when it says
/// something, nothing for an empty text, and [`default_data`] when nothing
/// was given. Checked.
pub(crate) fn lease_data(given: Option<&Arc<str>>) -> Result<Option<Arc<str>>> {
    match given {
        Some(data) => {
            check_data(data)?;
            Ok((!data.is_empty()).then(|| data.clone()))
        }
        None => Ok(Some(default_data())),
    }
}

/// This process's `HOST:PID` (e.g. `build-7:41327`): the data of a lease
/// whose holder attached none. Made once per process id, so a forked child
/// says its own.
pub fn default_data() -> Arc<str> {
    static MADE: Mutex<Option<(u32, Arc<str>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    match &*made {
        Some((for_pid, data)) if *for_pid == pid => data.clone(),
        _ => {
            let data: Arc<str> = format!("{}:{pid}", crate::os::host_name::host_name()).into();
            *made = Some((pid, data.clone()));
            data
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_host_and_pid_and_too_long_is_invalid() {
        let data = default_data();
        let (host, pid) = data.rsplit_once(':').unwrap();
        assert!(!host.is_empty());
        assert_eq!(pid, std::process::id().to_string());
        assert_eq!(lease_data(None).unwrap(), Some(data));
        assert_eq!(lease_data(Some(&"".into())).unwrap(), None);
        let full: Arc<str> = "é".repeat(512).into();
        assert_eq!(lease_data(Some(&full)).unwrap(), Some(full));
        let over: Arc<str> = "x".repeat(1025).into();
        let err = lease_data(Some(&over)).unwrap_err();
        assert_eq!(err.code(), crate::Code::Invalid);
        assert!(
            err.to_string().contains("at most 1024 bytes, not 1025"),
            "{err}"
        );
    }
}
