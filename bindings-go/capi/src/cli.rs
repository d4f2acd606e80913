//! `ts_cli_main`: the `tinystore` command line (the one the `tinystore`
//! binary runs), started from a program in another language, so that a
//! package brings the command without a separate binary.

use std::ffi::{c_char, c_int, CStr, OsString};
use std::os::unix::ffi::OsStringExt;

/// Runs the `tinystore` command line on `argv[0..argc]` (the first is the
/// program's name) and returns the process's exit status, as the
/// `tinystore` binary would exit. Meant as a program's whole `main`: it
/// first sets the signals as a Rust program starts with them (SIGPIPE
/// ignored, SIGINT and SIGTERM at their default action, so that `serve` and
/// `hold` handle them themselves), and it prints to the process's standard
/// output and error.
///
/// # Safety
/// `argv` points to `argc` NUL-terminated strings (NULL when `argc` is 0).
#[no_mangle]
pub unsafe extern "C" fn ts_cli_main(argc: c_int, argv: *const *const c_char) -> c_int {
    let count = usize::try_from(argc).unwrap_or(0);
    let args: Vec<OsString> = if argv.is_null() {
        Vec::new()
    } else {
        (0..count)
            .map(|i| {
                // SAFETY: promised by the caller: argc readable, NUL-terminated strings.
                let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
                OsString::from_vec(arg.to_bytes().to_vec())
            })
            .collect()
    };
    start_as_a_rust_program();
    // A panic (a bug) exits as a Rust program's would, with 101.
    std::panic::catch_unwind(|| tinystore_cli::run(args)).unwrap_or(101)
}

/// The signal dispositions a Rust `main` starts with; a host such as the Go
/// runtime sets its own, which would end the process on SIGTERM before the
/// command could stop cleanly.
fn start_as_a_rust_program() {
    // SAFETY: sets process-wide dispositions to constants, before any
    // thread of this library runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
}
