//! What a directory must hold: a lost `kv.db` (deleted, emptied, or another
//! program's database) is `corrupt` and never served as a new store; the
//! last epoch is kept in `DIR/EPOCH` too, so a restored older backup still
//! gives larger fences; `hold`, `backup` and `status` refuse a directory
//! without a store and make nothing; a new store directory is mode 0700;
//! a backup never lands on the store's own files.

use crate::support::server::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use tinystore::blocking::Store;

fn tinystore(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Runs `tinystore serve DIR ARGS`, which must exit with an error within
/// 20 s (a serve that starts is killed and fails the test). Its stderr.
fn serve_refused(dir: &Path, args: &[&str]) -> String {
    let mut child = Command::new(BIN)
        .arg("serve")
        .arg(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!("serve {} started: {}", dir.display(), text(&out));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "serve must refuse {}", dir.display());
    text(&out)
}

/// Serves `dir` with `args`, takes one fence, and stops it with SIGTERM.
fn one_fence(dir: &Path, args: &[&str]) -> tinystore::Fence {
    let mut served = Served::start(dir, args);
    let fence = {
        let store = Store::connect(&served.address()).unwrap();
        let lease = store.locks("g").acquire("k").unwrap();
        lease.fence()
    };
    signal(served.pid(), libc::SIGTERM);
    assert!(served.child.wait().unwrap().success());
    fence
}

fn says_lost(said: &str) {
    assert!(said.contains("corrupt"), "{said}");
    assert!(said.contains("kv.db"), "names the file: {said}");
    assert!(
        said.contains("tinystore restore"),
        "says the way out: {said}"
    );
}

/// A way to lose `kv.db`.
type Lose = fn(&Path);

#[test]
fn a_lost_emptied_or_foreign_kv_db_is_corrupt_and_left_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let lost: [(&str, Lose); 3] = [
        ("deleted", |db| std::fs::remove_file(db).unwrap()),
        ("emptied", |db| std::fs::write(db, b"").unwrap()),
        ("foreign", |db| {
            std::fs::remove_file(db).unwrap();
            make_chat_db(db);
        }),
    ];
    for (case, lose) in lost {
        let dir = tmp.path().join(case);
        one_fence(&dir, &[]);
        let db = dir.join("kv.db");
        lose(&db);
        let bytes = std::fs::read(&db).ok();
        let said = serve_refused(&dir, &[]);
        says_lost(&said);
        assert_eq!(std::fs::read(&db).ok(), bytes, "{case}: kv.db was changed");
        let out = tinystore(&["status", dir.to_str().unwrap()]);
        assert!(!out.status.success(), "{case}: status");
        says_lost(&text(&out));
        let out = tinystore(&["hold", dir.to_str().unwrap(), "g", "k", "--", "true"]);
        assert!(!out.status.success(), "{case}: hold");
        says_lost(&text(&out));
        assert_eq!(std::fs::read(&db).ok(), bytes, "{case}: kv.db was changed");
    }
    let foreign = rusqlite::Connection::open(tmp.path().join("foreign/kv.db")).unwrap();
    let tables: Vec<String> = foreign
        .prepare("select name from sqlite_master where type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        tables,
        ["chats"],
        "no table was added to another program's file"
    );
}

#[test]
fn after_a_clock_ahead_a_lost_kv_db_is_refused_and_an_older_backup_still_gives_larger_fences() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let backup = tmp.path().join("backup.db");
    {
        let mut served = Served::start(&dir, &[]);
        let out = tinystore(&["backup", &served.address(), backup.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        signal(served.pid(), libc::SIGTERM);
        served.child.wait().unwrap();
    }
    // Epochs given while the clock was an hour ahead.
    let ahead = one_fence(&dir, &["--clock-offset-ms", "3600000"]);
    let epoch_file = std::fs::read_to_string(dir.join("EPOCH")).unwrap();
    assert_eq!(epoch_file.trim(), ahead.epoch().to_string());

    std::fs::remove_file(dir.join("kv.db")).unwrap();
    says_lost(&serve_refused(&dir, &[]));

    let out = tinystore(&["restore", backup.to_str().unwrap(), dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    // The backup was taken while the store was served: a short grace.
    let after = one_fence(&dir, &["--grace", "100ms"]);
    assert!(
        after > ahead,
        "a restored older backup lowered the fences: {after} <= {ahead}"
    );
    assert_eq!(after.epoch(), ahead.epoch() + 1);
}

#[test]
fn hold_backup_and_status_refuse_a_directory_without_a_store_and_make_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("nonexistent").join("x");
    let out = tinystore(&["hold", nowhere.to_str().unwrap(), "g", "k", "--", "true"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("no tinystore store"), "{}", text(&out));
    assert!(
        !tmp.path().join("nonexistent").exists(),
        "hold made a store"
    );

    let missing = tmp.path().join("typo");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "not a store").unwrap();
    let dest = tmp.path().join("backup.db");
    for dir in [&missing, &empty, &other] {
        let d = dir.to_str().unwrap();
        let runs: [&[&str]; 3] = [
            &["hold", d, "g", "k", "--", "true"],
            &["backup", d, dest.to_str().unwrap()],
            &["status", d],
        ];
        for args in runs {
            let out = tinystore(args);
            assert!(!out.status.success(), "{args:?} succeeded");
            let said = text(&out);
            assert!(said.contains("invalid"), "{args:?}: {said}");
            assert!(
                said.contains("no tinystore store (no kv.db)"),
                "{args:?}: {said}"
            );
        }
    }
    assert!(
        !missing.exists(),
        "a store was made at {}",
        missing.display()
    );
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
    assert!(!dest.exists());
    assert!(
        serve_refused(&other, &[]).contains("no tinystore store"),
        "serve makes a store only in a missing or empty directory"
    );
}

#[test]
fn the_store_directory_is_mode_0700_whatever_the_umask() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let mut serve = Command::new("sh")
        .arg("-c")
        .arg(format!("umask 000; exec '{BIN}' serve '{}'", dir.display()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !dir.join("tinystore.sock").exists() {
        assert!(Instant::now() < deadline, "serve did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
    serve.kill().unwrap();
    serve.wait().unwrap();
    assert_eq!(mode & 0o777, 0o700, "store directory mode {mode:o}");
}

/// A file's bytes and modification time, if it exists.
type Seen = Option<(Vec<u8>, std::time::SystemTime)>;

/// The bytes and modification time of each of the store's files.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Seen)> {
    ["kv.db", "kv.db-wal", "kv.db-shm", "LOCK", "EPOCH"]
        .iter()
        .map(|name| {
            let path = dir.join(name);
            let seen = std::fs::read(&path)
                .ok()
                .zip(std::fs::metadata(&path).and_then(|m| m.modified()).ok());
            (path, seen)
        })
        .collect()
}

#[test]
fn a_backup_onto_the_stores_own_files_is_refused_before_anything_is_touched() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let link = tmp.path().join("link-to-shm");
    std::os::unix::fs::symlink(dir.join("kv.db-shm"), &link).unwrap();
    let through_parent = dir.join("..").join("store").join("kv.db");
    let dests: Vec<PathBuf> = vec![
        dir.join("kv.db"),
        through_parent,
        link,
        dir.join("kv.db-wal"),
        dir.join("kv.db-shm"),
        dir.join("LOCK"),
        dir.join("EPOCH"),
    ];
    let try_all = |target: &str| {
        let before = snapshot(&dir);
        for dest in &dests {
            let out = tinystore(&["backup", target, dest.to_str().unwrap()]);
            assert!(
                !out.status.success(),
                "backup to {} succeeded",
                dest.display()
            );
            let said = text(&out);
            assert!(said.contains("invalid") && said.contains("own"), "{said}");
        }
        assert!(snapshot(&dir) == before, "a store file changed");
    };

    // Served: the server refuses.
    let mut served = Served::start(&dir, &[]);
    let store = Store::connect(&served.address()).unwrap();
    let lease = store.locks("g").acquire("k").unwrap();
    try_all(dir.to_str().unwrap());
    try_all(&served.address());
    assert!(lease.is_held());
    drop(lease);
    drop(store);

    // Nobody owns it: backup refuses before it takes the lock.
    signal(served.pid(), libc::SIGTERM);
    served.child.wait().unwrap();
    try_all(dir.to_str().unwrap());
}
