//! The store directory: the epoch rule and LOCK-02 under a clock that steps
//! backwards, one owner per directory across real processes, clean close,
//! grace after an unclean stop, backup and restore.

use std::process::{Command, Stdio};
use std::time::Duration;
use tinystore::{blocking, Code, Fence, ManualClock, StoreOptions};

fn options(clock: &ManualClock) -> StoreOptions {
    StoreOptions::default().clock(clock.clone())
}

#[test]
fn lock_02_fences_always_grow_across_a_thousand_reopens_under_a_jumping_clock() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_764_460_800_000);
    let mut last = Fence::default();
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    for round in 0..1000 {
        // A clock that jumps back by up to a day or forward by up to a minute.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let now = clock_step(1_764_460_800_000, rng);
        clock.set(now);
        let store = blocking::Store::open_with(dir.path(), options(&clock)).unwrap();
        let locks = store.locks("lock02");
        for n in 0..(rng % 3 + 1) {
            let lease = locks.acquire(n).unwrap();
            assert!(
                lease.fence() > last,
                "round {round}: {} is not above {last}",
                lease.fence()
            );
            last = lease.fence();
        }
        if rng.is_multiple_of(5) {
            drop(store); // a stop without close: the epoch rule holds all the same
        } else {
            store.close().unwrap();
        }
    }
}

/// A child being started holds a copy of each of its parent's descriptors
/// until it runs its program: the lock of a store the parent has just
/// closed too. Reopening the store waits for that copy to go, where it was
/// told `in_use`, naming its own pid (this raced with every test that
/// starts a process, as LOCK-02's thousand reopens once found). Played in
/// a process of its own ([`child_closes_a_store_while_its_child_starts`]),
/// whose slow child copies no other test's descriptors.
#[cfg(unix)]
#[test]
fn a_store_closed_while_a_child_is_starting_opens_again() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test_name!("child_closes_a_store_while_its_child_starts"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TINYSTORE_FORK_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("CHILD-REOPENED"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn child_closes_a_store_while_its_child_starts() {
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    if std::env::var_os("TINYSTORE_FORK_CHILD").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = blocking::Store::open(dir.path()).unwrap();
    let (mut forked, told) = std::io::pipe().unwrap();
    let starting = std::thread::spawn(move || {
        let mut child = Command::new("true");
        // SAFETY: between fork and exec the child only writes to a pipe
        // and sleeps (nanosleep), both async-signal-safe.
        unsafe {
            child.pre_exec(move || {
                (&told).write_all(b"forked")?;
                std::thread::sleep(Duration::from_millis(300));
                Ok(())
            });
        }
        child.status().unwrap()
    });
    let mut said = [0u8; 6];
    forked.read_exact(&mut said).unwrap();
    store.close().unwrap();
    let again = blocking::Store::open(dir.path());
    assert!(again.is_ok(), "{:?}", again.err());
    assert!(starting.join().unwrap().success());
    let other = blocking::Store::open(dir.path()).unwrap_err();
    assert_eq!(
        other.code(),
        Code::InUse,
        "a store this process owns is in use"
    );
    println!("CHILD-REOPENED");
}

fn clock_step(base: u64, rng: u64) -> u64 {
    let day = 86_400_000u64;
    if rng.is_multiple_of(2) {
        base - rng % day
    } else {
        base + rng % 60_000
    }
}

#[test]
fn the_epoch_is_now_or_the_previous_plus_one() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let first = blocking::Store::open_with(dir.path(), options(&clock)).unwrap();
    assert_eq!(first.status().unwrap().epoch, 1_000);
    first.close().unwrap();
    let again = blocking::Store::open_with(dir.path(), options(&clock)).unwrap();
    assert_eq!(
        again.status().unwrap().epoch,
        1_001,
        "reopened within the same ms"
    );
    again.close().unwrap();
    clock.set(5);
    let back = blocking::Store::open_with(dir.path(), options(&clock)).unwrap();
    assert_eq!(
        back.status().unwrap().epoch,
        1_002,
        "the clock stepped backwards"
    );
}

/// When run with TINYSTORE_CHILD_DIR set, this "test" is the second process:
/// it opens the store and reports the error on stdout.
#[test]
fn child_opens_store() {
    let Ok(dir) = std::env::var("TINYSTORE_CHILD_DIR") else {
        return;
    };
    match blocking::Store::open(&dir) {
        Ok(_) => println!("CHILD-RESULT ok"),
        Err(e) => println!("CHILD-RESULT {} {}", e.code(), e.message()),
    }
}

fn open_in_child(dir: &std::path::Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test_name!("child_opens_store"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TINYSTORE_CHILD_DIR", dir)
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    stdout
        .lines()
        .find_map(|l| {
            l.split_once("CHILD-RESULT ")
                .map(|(_, said)| said.to_string())
        })
        .unwrap_or_else(|| panic!("the child said nothing: {stdout}"))
}

#[test]
fn a_second_process_gets_in_use_naming_the_owner_pid() {
    let dir = tempfile::tempdir().unwrap();
    let store = blocking::Store::open(dir.path()).unwrap();
    let said = open_in_child(dir.path());
    assert!(said.starts_with("in_use "), "{said}");
    assert!(
        said.contains(&std::process::id().to_string()),
        "names our pid: {said}"
    );
    assert!(
        said.contains(&dir.path().display().to_string()),
        "names the dir: {said}"
    );
    store.close().unwrap();
    assert_eq!(
        open_in_child(dir.path()),
        "ok",
        "close gives the directory up"
    );
}

#[test]
fn close_marks_kv_db_clean_and_a_crash_leaves_it_unclean() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kv.db");
    let clean = |db: &std::path::Path| -> String {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.query_row("select value from meta where name = 'clean'", [], |r| {
            r.get(0)
        })
        .unwrap()
    };
    let store = blocking::Store::open(dir.path()).unwrap();
    assert_eq!(clean(&db), "0", "open marks it in use");
    store.close().unwrap();
    assert_eq!(clean(&db), "1");
}

#[test]
fn after_an_unclean_stop_a_store_with_grace_grants_nothing_until_it_passes() {
    let dir = tempfile::tempdir().unwrap();
    let first = blocking::Store::open(dir.path()).unwrap();
    let before = first.locks("g").acquire("k").unwrap().fence();
    first.close().unwrap();
    // What a crash of a server leaves: kv.db served and still marked in use.
    let conn = rusqlite::Connection::open(dir.path().join("kv.db")).unwrap();
    conn.execute_batch(
        "update meta set value = '0' where name = 'clean';
         update meta set value = '1' where name = 'served';",
    )
    .unwrap();
    drop(conn);

    let grace = Duration::from_millis(200);
    let store =
        blocking::Store::open_with(dir.path(), StoreOptions::default().grace(grace)).unwrap();
    assert!(store.status().unwrap().grace_left_ms.is_some());
    let locks = store.locks("g");
    assert!(
        locks.try_acquire("other").unwrap().is_none(),
        "no grant in the grace"
    );
    let lease = locks.acquire("k").unwrap(); // waits out the grace
    assert!(lease.fence() > before);
    assert!(store.status().unwrap().grace_left_ms.is_none());
    store.close().unwrap();

    let clean =
        blocking::Store::open_with(dir.path(), StoreOptions::default().grace(grace)).unwrap();
    assert!(
        clean.locks("g").try_acquire("k").unwrap().is_some(),
        "no grace after a clean close"
    );
}

#[test]
fn backup_while_running_and_restore_give_larger_fences_later() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let backup = dir.path().join("backup.db");
    let clock = ManualClock::new(2_000_000);
    let store = blocking::Store::open_with(&store_dir, options(&clock)).unwrap();
    let before = store.locks("b").acquire("k").unwrap().fence();
    store.backup(&backup).unwrap();
    store.close().unwrap();

    let restored_dir = dir.path().join("restored");
    tinystore::restore(&backup, &restored_dir).unwrap();
    let restored = blocking::Store::open_with(&restored_dir, options(&clock)).unwrap();
    let after = restored.locks("b").acquire("k").unwrap().fence();
    assert!(after > before, "{after} > {before}");
    assert_eq!(after.epoch(), before.epoch() + 1);
    let open_err = tinystore::restore(&backup, &restored_dir).unwrap_err();
    assert_eq!(
        open_err.code(),
        Code::InUse,
        "restoring into an open store is refused"
    );

    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"not a database at all, not even close....").unwrap();
    let err = tinystore::restore(&junk, dir.path().join("other")).unwrap_err();
    assert_eq!(err.code(), Code::Corrupt, "{err}");
}

#[test]
fn a_corrupt_kv_db_is_refused_with_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kv.db"), vec![7u8; 8192]).unwrap();
    let err = blocking::Store::open(dir.path()).unwrap_err();
    assert_eq!(err.code(), Code::Corrupt, "{err}");
    assert!(err.message().contains("kv.db"), "{err}");
}

#[test]
fn a_store_held_in_a_blocking_hold_is_released_even_on_panic() {
    let dir = tempfile::tempdir().unwrap();
    let store = blocking::Store::open(dir.path()).unwrap();
    let locks = store.locks("panic");
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = locks.hold("k", |_lease| -> Result<(), tinystore::Error> {
            panic!("the body panics");
        });
    }));
    assert!(caught.is_err());
    assert!(
        locks.try_acquire("k").unwrap().is_some(),
        "the panic released the key"
    );
    let _ = Duration::ZERO;
}
