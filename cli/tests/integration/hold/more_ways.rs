//! `tinystore hold` with several keys, `--read` / `--write`, a weighted
//! permit (`--limit N --weight W`) and `--max-hold`, and `elect
//! --max-hold`, against a real server: what CMD's environment says, what
//! status shows while it runs, who waits for whom, and the exit statuses.

use crate::support::server::*;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// hold's documented statuses.
const EXIT_LOST: i32 = 76;
const EXIT_WAIT_RAN_OUT: i32 = 75;
const EXIT_ERROR: i32 = 70;

/// CMD printing its fence variables, one per line (empty when unset).
const PRINT_FENCES: &str =
    "echo \"F=${TINYSTORE_FENCE-unset}\"; echo \"T=${TINYSTORE_FENCE_TEXT-unset}\"; \
     echo \"FS=${TINYSTORE_FENCES-unset}\"; echo \"TS=${TINYSTORE_FENCES_TEXT-unset}\"";

/// Runs `tinystore ARGS... -- sh -c SCRIPT` to its end.
fn run(args: &[&str], script: &str) -> Output {
    Command::new(BIN)
        .args(args)
        .args(["--", "sh", "-c", script])
        .env("TINYSTORE_FENCE", "1")
        .output()
        .unwrap()
}

/// Starts `tinystore ARGS... -- sh -c 'until [ ! -e GATE ]; ...'`: a CMD
/// that runs until `gate` is removed.
fn start_until_removed(args: &[&str], gate: &Path) -> Child {
    std::fs::write(gate, "").unwrap();
    let script = format!("while [ -e '{}' ]; do sleep 0.02; done", gate.display());
    Command::new(BIN)
        .args(args)
        .args(["--", "sh", "-c", &script])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The server's status (`tinystore status --json`).
fn status(address: &str) -> serde_json::Value {
    serde_json::from_slice(&tinystore_ok(&["status", address, "--json"]).stdout).unwrap()
}

/// Waits until status shows `count` leases held on `name`; returns them.
fn until_held(address: &str, name: &str, count: usize) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let held: Vec<serde_json::Value> = status(address)["held"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["name"] == name)
            .cloned()
            .collect();
        if held.len() == count {
            return held;
        }
        assert!(
            Instant::now() < deadline,
            "{name} never had {count} held: {held:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The value of `VAR=` in CMD's printed lines.
fn printed<'a>(out: &'a Output, var: &str) -> &'a str {
    let text = std::str::from_utf8(&out.stdout).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{var}=")))
        .unwrap_or_else(|| panic!("no {var} in {text}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn several_keys_are_held_together_with_a_fence_each() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let a = served.address();
    let script = format!("{PRINT_FENCES}; {BIN} status {a} --json > held.json");
    let out = Command::new(BIN)
        .args(["hold", &a, "jobs", "c", "a", "b", "--", "sh", "-c", &script])
        .current_dir(tmp.path())
        .env("TINYSTORE_FENCE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fences: Vec<u128> = printed(&out, "FS")
        .split(' ')
        .map(|f| f.parse().unwrap())
        .collect();
    assert_eq!(fences.len(), 3, "a fence per key");
    let texts: Vec<String> = fences.iter().map(|f| format!("{f:040}")).collect();
    assert_eq!(printed(&out, "TS"), texts.join(" "));
    // No one fence stands for every key; hold's own is not passed on.
    assert_eq!(printed(&out, "F"), "unset");
    assert_eq!(printed(&out, "T"), "unset");
    // Taken in key order (a, b, c), listed in the order named (c, a, b).
    assert!(fences[1] < fences[2] && fences[2] < fences[0], "{fences:?}");
    let held: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("held.json")).unwrap())
            .unwrap();
    for (key, fence) in ["c", "a", "b"].iter().zip(&fences) {
        assert!(
            held["held"]
                .as_array()
                .unwrap()
                .iter()
                .any(|h| h["key"] == *key
                    && h["kind"] == "lock"
                    && h["fence"] == fence.to_string()),
            "{key} not held with {fence}: {held}"
        );
    }
    assert!(until_held(&a, "jobs", 0).is_empty(), "released at the end");

    let twice = run(&["hold", &a, "jobs", "a", "a"], "true");
    assert_eq!(twice.status.code(), Some(EXIT_ERROR));
    assert!(
        stderr(&twice).contains("names key \"a\" twice"),
        "{}",
        stderr(&twice)
    );
    let read_two = run(&["hold", &a, "docs", "a", "b", "--read"], "true");
    assert_eq!(read_two.status.code(), Some(EXIT_ERROR));
    assert!(stderr(&read_two).contains("several keys are held only of a lock group"));
}

#[test]
fn readers_share_a_key_and_a_writer_waits_for_them() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let a = served.address();
    let gate = tmp.path().join("reading");
    let reader = start_until_removed(&["hold", &a, "docs", "k", "--read"], &gate);
    let held = until_held(&a, "docs", 1);
    assert_eq!(held[0]["kind"], "rwlock");
    assert_eq!(held[0]["mode"], "read");
    assert!(held[0]["fence"].is_null());
    let text = String::from_utf8(tinystore_ok(&["status", &a]).stdout).unwrap();
    let header = text.lines().find(|l| l.contains("NAME")).unwrap();
    assert!(
        header.contains("KIND") && header.contains("WEIGHT"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("docs"))
        .unwrap();
    assert!(
        row.contains("rwlock read") && row.contains("read (no fence)"),
        "{text}"
    );

    // A second reader shares the key; it has no fence, though hold's own
    // environment had one.
    let second = run(
        &["hold", &a, "docs", "k", "--read", "--wait", "5s"],
        PRINT_FENCES,
    );
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(printed(&second, "F"), "unset");
    assert_eq!(printed(&second, "T"), "unset");

    let writer = run(
        &["hold", &a, "docs", "k", "--write", "--wait", "200ms"],
        "true",
    );
    assert_eq!(
        writer.status.code(),
        Some(EXIT_WAIT_RAN_OUT),
        "{}",
        stderr(&writer)
    );

    std::fs::remove_file(&gate).unwrap();
    let done = reader.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let script = format!("{PRINT_FENCES}; {BIN} status {a}");
    let writer = run(
        &["hold", &a, "docs", "k", "--write", "--wait", "5s"],
        &script,
    );
    assert_eq!(writer.status.code(), Some(0), "{}", stderr(&writer));
    let fence: u128 = printed(&writer, "F").parse().unwrap();
    assert!(fence > 0);
    assert_eq!(printed(&writer, "FS"), "unset", "one key, one fence");
    let shown = String::from_utf8_lossy(&writer.stdout);
    let row = shown
        .lines()
        .find(|l| l.trim_start().starts_with("docs"))
        .unwrap();
    assert!(
        row.contains("rwlock write") && row.contains(" all "),
        "{shown}"
    );
}

#[test]
fn a_weighted_permit_takes_its_places() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let a = served.address();
    let gate = tmp.path().join("heavy");
    let heavy = start_until_removed(
        &["hold", &a, "pool", "gpu", "--limit", "3", "--weight", "2"],
        &gate,
    );
    let held = until_held(&a, "pool", 1);
    assert_eq!(
        (held[0]["kind"].as_str(), held[0]["weight"].as_u64()),
        (Some("semaphore"), Some(2))
    );

    let too_heavy = run(
        &[
            "hold", &a, "pool", "gpu", "--limit", "3", "--weight", "2", "--wait", "200ms",
        ],
        "true",
    );
    assert_eq!(
        too_heavy.status.code(),
        Some(EXIT_WAIT_RAN_OUT),
        "{}",
        stderr(&too_heavy)
    );
    let fits = run(
        &["hold", &a, "pool", "gpu", "--limit", "3", "--wait", "5s"],
        PRINT_FENCES,
    );
    assert_eq!(fits.status.code(), Some(0), "{}", stderr(&fits));
    assert_eq!(printed(&fits, "F"), "unset", "a permit has no fence");

    let out_of_range = run(
        &["hold", &a, "pool", "gpu", "--limit", "3", "--weight", "4"],
        "true",
    );
    assert_eq!(out_of_range.status.code(), Some(EXIT_ERROR));
    assert!(
        stderr(&out_of_range).contains("weight 4 is out of range"),
        "{}",
        stderr(&out_of_range)
    );
    let no_limit = run(&["hold", &a, "pool", "gpu", "--weight", "2"], "true");
    assert_eq!(
        no_limit.status.code(),
        Some(2),
        "a usage error: --weight needs --limit"
    );

    std::fs::remove_file(&gate).unwrap();
    assert_eq!(heavy.wait_with_output().unwrap().status.code(), Some(0));
}

#[test]
fn max_hold_stops_the_command_however_long_it_is_renewed() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let a = served.address();
    for args in [
        vec![
            "hold",
            a.as_str(),
            "jobs",
            "m",
            "--ttl",
            "150ms",
            "--max-hold",
            "400ms",
        ],
        vec![
            "hold",
            a.as_str(),
            "docs",
            "m",
            "--write",
            "--ttl",
            "150ms",
            "--max-hold",
            "400ms",
        ],
        vec![
            "elect",
            a.as_str(),
            "boss",
            "--value",
            "me",
            "--ttl",
            "150ms",
            "--max-hold",
            "400ms",
        ],
    ] {
        let started = Instant::now();
        // Renewed every 50 ms, the lease would be kept for the 30 s of CMD.
        let out = run(&args, "sleep 30");
        let took = started.elapsed();
        assert_eq!(
            out.status.code(),
            Some(EXIT_LOST),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("max_hold"), "{}", stderr(&out));
        assert!(
            took >= Duration::from_millis(400),
            "{args:?} ended after {took:?}"
        );
        assert!(
            took < Duration::from_secs(20),
            "{args:?} ended after {took:?}"
        );
    }
}

#[test]
fn holds_of_overlapping_keys_in_any_order_all_finish() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let a = served.address();
    // Each pair names the same keys in opposite orders: taken as named,
    // two of them would wait for each other forever.
    let orders = [
        ["a", "b", "c"],
        ["c", "b", "a"],
        ["b", "c", "a"],
        ["c", "a", "b"],
        ["a", "c", "b"],
        ["b", "a", "c"],
    ];
    let started = Instant::now();
    let holds: Vec<Child> = orders
        .iter()
        .map(|keys| {
            Command::new(BIN)
                .args(["hold", &a, "jobs"])
                .args(keys)
                .args(["--wait", "30s", "--", "sh", "-c", "sleep 0.05"])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for hold in holds {
        let done = hold.wait_with_output().unwrap();
        assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    }
    // Six holds of 50 ms one after another, with room for a slow machine.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(until_held(&a, "jobs", 0).is_empty());
}
