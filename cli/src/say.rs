//! Lines for the user on stderr that never panic. `eprintln!` panics when
//! stderr is closed (`tinystore serve DIR 2>&1 | head -1`, a log pipe whose
//! reader died); a server or a `hold` must not stop serving, or leave its
//! command unsupervised, for a line nobody can read: the line is lost, the
//! process carries on.

/// Writes one line to stderr, as `eprintln!` does, ignoring a stderr that
/// cannot be written.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
