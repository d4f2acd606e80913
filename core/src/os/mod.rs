//! What the operating system gives differently on each platform, one
//! concern per file, each behind a function that the rest of core calls
//! alike everywhere. Each file's doc comment says what it does on Unix
//! (Linux and macOS, which tinystore is built and tested on) and what the
//! other systems do or will do; a part not built for a system yet fails
//! there at run time with `invalid`, naming the system, never at compile
//! or link time.

pub(crate) mod file_lock;
pub(crate) mod file_modes;
pub(crate) mod host_name;
pub(crate) mod local_socket;
pub(crate) mod open_files;
pub(crate) mod proc_units;
pub(crate) mod same_file;
pub(crate) mod sync_dir;

#[cfg(not(unix))]
use crate::error::{Code, Error};

/// The `invalid` error of a part tinystore does not support on this
/// system: `"{what} are not supported on {os}; {instead}"`.
#[cfg(not(unix))]
pub(crate) fn unsupported(what: &str, instead: &str) -> Error {
    Error::new(
        Code::Invalid,
        format!(
            "{what} are not supported on {os}; {instead}",
            os = std::env::consts::OS
        ),
    )
}
