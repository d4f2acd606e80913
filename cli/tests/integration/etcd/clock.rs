//! On etcd, a client's wall clock does not matter once the prefix is in
//! use: the epoch is set once, by the first client, and TTLs are counted
//! on the monotonic clock and by etcd. Real `tinystore hold` processes run
//! under libfaketime (`faketime`, from Debian), with their wall clock hours
//! off and stepped while a lease is held; the monotonic clock is left alone
//! (FAKETIME_DONT_FAKE_MONOTONIC=1), as a clock step by NTP or by hand
//! leaves it.
//!
//! Ignored unless a cluster runs: `make test-etcd` starts one, sets
//! TINYSTORE_ETCD to its members, installs faketime and runs them with
//! `--include-ignored`.

use crate::etcd::support::fresh_address;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const BIN: &str = env!("CARGO_BIN_EXE_tinystore");

/// The true wall clock, since 1970.
fn now() -> Duration {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap()
}

/// libfaketime's library for threaded programs (Debian's path, or
/// TINYSTORE_FAKETIME_LIB).
fn faketime_lib() -> String {
    let lib = std::env::var("TINYSTORE_FAKETIME_LIB")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1".into());
    assert!(
        Path::new(&lib).exists(),
        "{lib} is missing: install faketime (apt-get install faketime) or name the library in TINYSTORE_FAKETIME_LIB"
    );
    lib
}

/// The wall clock a process runs with.
#[derive(Clone, Copy, Debug)]
enum Clock<'a> {
    /// The real one.
    True,
    /// Off by a faketime offset such as "-2h".
    Off(&'a str),
    /// Off by the offset in this file, read again at every call.
    Stepped(&'a Path),
}

/// `tinystore ARGS` with its wall clock as `clock` says; the monotonic
/// clock stays true.
fn tinystore(clock: Clock<'_>, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    match clock {
        Clock::True => {}
        Clock::Off(offset) => {
            cmd.env("LD_PRELOAD", faketime_lib())
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env("FAKETIME", offset);
        }
        Clock::Stepped(file) => {
            cmd.env("LD_PRELOAD", faketime_lib())
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env("FAKETIME_TIMESTAMP_FILE", file)
                .env("FAKETIME_NO_CACHE", "1");
        }
    }
    cmd
}

/// Holds jobs/a for `ttl` while CMD prints its fence and its own wall
/// clock (seconds since 1970), then runs `then`; returns the fence and every
/// number printed after it.
fn hold(clock: Clock<'_>, address: &str, ttl: &str, then: &str) -> (u128, Vec<u64>) {
    let script = format!("echo $TINYSTORE_FENCE $(date +%s); {then}");
    let out: Output = tinystore(
        clock,
        &[
            "hold", address, "jobs", "a", "--ttl", ttl, "--", "sh", "-c", &script,
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "hold (clock {clock:?}) exited {:?}: {stderr}",
        out.status.code()
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut words = stdout.split_whitespace();
    let fence = words.next().and_then(|w| w.parse().ok());
    let seen: Option<Vec<u64>> = words.map(|w| w.parse().ok()).collect();
    match (fence, seen) {
        (Some(fence), Some(seen)) => (fence, seen),
        _ => panic!("hold printed {stdout:?}"),
    }
}

fn epoch_of(fence: u128) -> u64 {
    (fence >> 64) as u64
}

#[test]
#[ignore = "needs an etcd cluster in TINYSTORE_ETCD and faketime (make test-etcd)"]
fn clients_whose_clocks_are_hours_off_get_fences_that_keep_rising_in_one_epoch() {
    let address = fresh_address("off");
    let real = now().as_secs();
    let (first, _) = hold(Clock::True, &address, "5s", "true");
    let (behind, seen) = hold(Clock::Off("-2h"), &address, "5s", "true");
    let seen_behind = seen[0];
    let (ahead, seen) = hold(Clock::Off("+2h"), &address, "5s", "true");
    let seen_ahead = seen[0];
    let (after, _) = hold(Clock::True, &address, "5s", "true");
    // The clocks really were off: CMD, under the same faketime, saw them.
    assert!(
        seen_behind + 3600 < real,
        "the clock behind read {seen_behind}, now is {real}"
    );
    assert!(
        seen_ahead > real + 3600,
        "the clock ahead read {seen_ahead}, now is {real}"
    );
    assert!(
        first < behind && behind < ahead && ahead < after,
        "fences did not rise: {first}, {behind} (2 h behind), {ahead} (2 h ahead), {after}"
    );
    for fence in [behind, ahead, after] {
        assert_eq!(
            epoch_of(fence),
            epoch_of(first),
            "a client's clock moved the epoch"
        );
    }
}

#[test]
#[ignore = "needs an etcd cluster in TINYSTORE_ETCD and faketime (make test-etcd)"]
fn a_lease_held_while_the_wall_clock_steps_is_kept_and_ends_by_its_ttl_alone() {
    let address = fresh_address("steps");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("offset");
    std::fs::write(&file, "+0\n").unwrap();
    // The holder's clock steps back two hours, then forward five, while it
    // holds a 2 s lease for 6 s: three TTLs, renewed on the monotonic clock.
    let stepping = {
        let file = file.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            std::fs::write(&file, "-2h\n").unwrap();
            std::thread::sleep(Duration::from_millis(2000));
            std::fs::write(&file, "+3h\n").unwrap();
        })
    };
    let started = Instant::now();
    let real = now().as_secs();
    let (held, seen) = hold(Clock::Stepped(&file), &address, "2s", "sleep 6; date +%s");
    // The holder's clock did step: true at first, three hours ahead at the end.
    assert!(
        seen[0].abs_diff(real) < 60,
        "the clock read {} at first, now is {real}",
        seen[0]
    );
    assert!(
        seen[1] > real + 2 * 3600,
        "the clock read {} at the end, now is {real}",
        seen[1]
    );
    stepping.join().unwrap();
    assert!(started.elapsed() >= Duration::from_secs(6));
    // hold exited 0 (checked in `hold`): the lease was never lost; a lease
    // lost gives 76. The next holder, on the real clock, goes on from it.
    let (next, _) = hold(Clock::True, &address, "2s", "true");
    assert!(next > held, "fence {next} after {held}");
    assert_eq!(epoch_of(next), epoch_of(held));

    // A holder stopped while its clock is hours ahead still loses its lease
    // by its TTL, no sooner and no later than on a true clock: another
    // process gets the key once it ran out, with a larger fence.
    std::fs::write(&file, "+5h\n").unwrap();
    let mut stopped = tinystore(
        Clock::Stepped(&file),
        &[
            "hold", &address, "jobs", "a", "--ttl", "2s", "--", "sleep", "30",
        ],
    )
    .spawn()
    .unwrap();
    // Long enough for it to hold (the next hold below waits for the key).
    std::thread::sleep(Duration::from_millis(1500));
    let pid = stopped.id().to_string();
    let signal = |sig: &str| {
        let sent = Command::new("kill").args([sig, &pid]).status().unwrap();
        assert!(sent.success(), "kill {sig} {pid}");
    };
    signal("-STOP");
    let waited = Instant::now();
    let (taken, _) = hold(Clock::True, &address, "2s", "true");
    let wait = waited.elapsed();
    signal("-CONT");
    let status = stopped.wait().unwrap();
    assert!(taken > next, "fence {taken} after {next}");
    assert!(
        wait < Duration::from_secs(10),
        "the stopped holder's lease was not over within its ttl and a margin: {wait:?}"
    );
    assert_eq!(
        status.code(),
        Some(76),
        "the stopped holder was not told it lost its lease"
    );
}
