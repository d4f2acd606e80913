//! Faults at the disk: a full disk while the epoch is written, a read-only
//! store directory. Each gives a clear `io` error naming the file, and
//! nothing is lost: once the fault is gone the store opens with larger
//! fences than before. As root the faults are real (a small tmpfs, a
//! read-only remount); otherwise the directory's mode makes it read-only and
//! RLIMIT_FSIZE in a child process stands in for the full disk.

use std::path::{Path, PathBuf};
use std::process::Command;
use tinystore::{blocking, Code};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted when dropped.
struct Tmpfs {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mnt");
        std::fs::create_dir(&path).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "root can mount a tmpfs");
        Tmpfs { path, _dir: dir }
    }

    fn remount(&self, options: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.path)
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}

fn first_fence(dir: &Path) -> tinystore::Fence {
    let store = blocking::Store::open(dir).unwrap();
    let fence = store.locks("faults").acquire("k").unwrap().fence();
    store.close().unwrap();
    fence
}

/// Fills the file system holding `dir` until it refuses another byte.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 4096];
    while f.write_all(&block).is_ok() {}
    let _ = f.sync_all();
    filler
}

#[test]
fn a_full_disk_while_the_epoch_is_written_is_an_io_error_and_loses_nothing() {
    if !is_root() {
        return child_full_disk_without_root();
    }
    let fs = Tmpfs::mount("2m");
    let store_dir = fs.path.join("store");
    let before = first_fence(&store_dir);
    let filler = fill(&fs.path);

    let err = blocking::Store::open(&store_dir).unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(
        err.message().contains("kv.db"),
        "the message names the file: {err}"
    );

    std::fs::remove_file(filler).unwrap();
    let after = first_fence(&store_dir);
    assert!(after > before, "{after} > {before}: nothing was lost");
}

/// Without root: a child process whose RLIMIT_FSIZE stops kv.db from growing.
fn child_full_disk_without_root() {
    let dir = tempfile::tempdir().unwrap();
    let before = first_fence(dir.path());
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test_name!("child_opens_under_a_file_size_limit"),
            "--nocapture",
        ])
        .env("TINYSTORE_FSIZE_DIR", dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("CHILD-RESULT io"), "{stdout}");
    assert!(first_fence(dir.path()) > before);
}

#[test]
fn child_opens_under_a_file_size_limit() {
    let Ok(dir) = std::env::var("TINYSTORE_FSIZE_DIR") else {
        return;
    };
    // SAFETY: setting this process's own limits and signal disposition.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: libc::RLIM_INFINITY,
        };
        libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
    }
    match blocking::Store::open(&dir) {
        Ok(_) => println!("CHILD-RESULT ok"),
        Err(e) => println!("CHILD-RESULT {} {}", e.code(), e.message()),
    }
}

#[test]
fn a_read_only_store_directory_is_an_io_error_naming_it() {
    let (guard, store_dir): (Option<Tmpfs>, PathBuf) = if is_root() {
        let fs = Tmpfs::mount("4m");
        let dir = fs.path.join("store");
        (Some(fs), dir)
    } else {
        (None, tempfile::tempdir().unwrap().keep().join("store"))
    };
    let before = first_fence(&store_dir);
    match &guard {
        Some(fs) => fs.remount("ro"),
        None => set_mode(&store_dir, 0o555),
    }

    let err = blocking::Store::open(&store_dir).unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(
        err.message().contains(&store_dir.display().to_string()),
        "the message names the directory: {err}"
    );

    match &guard {
        Some(fs) => fs.remount("rw"),
        None => set_mode(&store_dir, 0o755),
    }
    assert!(first_fence(&store_dir) > before, "nothing was lost");
}

fn set_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
}
