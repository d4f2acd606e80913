//! A store directory seen from outside the process that owns it: the name of
//! its socket, which process owns it, and what can be read from or copied
//! out of one that nobody serves. The `tinystore` command uses these for
//! `status`, `backup` and `serve`.

pub use crate::disk::{backup_unowned, owner_pid, peek, Unserved, SOCKET};

/// Whether a server answers on the socket of the store `dir` now (a
/// blocking connect; never on a system without a local socket).
pub fn answers(dir: &std::path::Path) -> bool {
    crate::os::local_socket::answers(&dir.join(SOCKET))
}
