//! Keeping a store's files to their user: on Unix the store directory is
//! made mode 0700 and the socket 0600, whatever the umask. On Windows
//! nothing is changed: a new directory inherits the access list of its
//! parent (under the user's profile, the user's own), which tinystore
//! does not narrow yet.

use std::path::Path;

/// Makes the directory `dir` (its parent must exist), readable only by its
/// user on Unix; an existing one is left as it is and reported as
/// `AlreadyExists`.
pub(crate) fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::DirBuilder::new().create(dir)
    }
}

/// Restricts the directory `dir` to its user (0700 on Unix, whatever the
/// umask made it); nothing elsewhere.
pub(crate) fn restrict_dir(dir: &Path) -> std::io::Result<()> {
    set_mode(dir, 0o700)
}

/// Restricts the file `path` (a socket) to its user (0600 on Unix);
/// nothing elsewhere (where no socket is made yet).
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) fn restrict_file(path: &Path) -> std::io::Result<()> {
    set_mode(path, 0o600)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}
