//! The human `tinystore status` on a served store: aligned columns, fences
//! with their epoch's date and count, short durations, and names and keys
//! escaped so that none can forge a line or colour the terminal.

use crate::support::server::*;
use std::process::Command;
use std::time::{Duration, Instant};
use tinystore::blocking::Store;

/// A key that would forge a `held` line in red if printed raw.
const EVIL: &str = "evil\nheld    99\x1b[31mRED\r";
/// How the status shows it.
const EVIL_SHOWN: &str = "evil\\nheld    99\\x1b[31mRED\\r";

fn status(target: &str, json: bool) -> String {
    let mut cmd = Command::new(BIN);
    cmd.args(["status", target]);
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Starts a thread waiting for NAME/KEY; returns once the server counts it.
fn wait_for(address: &str, name: &str, key: &str) -> std::thread::JoinHandle<()> {
    let (address, name, key) = (address.to_string(), name.to_string(), key.to_string());
    let waiter = {
        let (address, name, key) = (address.clone(), name.clone(), key.clone());
        std::thread::spawn(move || {
            let store = Store::connect(&address).unwrap();
            let wait = Duration::from_secs(20);
            store.locks(&name).wait(wait).acquire(key.as_str()).unwrap();
        })
    };
    let store = Store::connect(&address).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while store.status().unwrap().waiting.is_empty() {
        assert!(Instant::now() < deadline, "the waiter never waited");
        std::thread::sleep(Duration::from_millis(10));
    }
    waiter
}

#[test]
fn status_escapes_control_characters_in_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let store = Store::connect(&served.address()).unwrap();
    let lease = store.locks("jobs").acquire(EVIL).unwrap();
    let waiter = wait_for(&served.address(), "jobs", EVIL);

    let text = status(&served.address(), false);
    let raw: Vec<u8> = text
        .bytes()
        .filter(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
        .collect();
    assert!(raw.is_empty(), "raw control bytes {raw:?} in:\n{text}");
    assert!(!text.chars().any(|c| c != '\n' && c.is_control()), "{text}");
    // Shown escaped, in the held table, the waiting table and the
    // longest waits.
    assert_eq!(text.matches(EVIL_SHOWN).count(), 3, "{text}");
    // The key forged no line: only the real `held` line starts with it.
    let held_lines = text.lines().filter(|l| l.starts_with("held")).count();
    assert_eq!(held_lines, 1, "{text}");

    drop(lease);
    waiter.join().unwrap();
}

/// `date -u` of an epoch: an oracle apart from the code under test.
fn utc_date(epoch_ms: u64) -> String {
    let out = Command::new("date")
        .args(["-u", "-d", &format!("@{}", epoch_ms / 1000)])
        .arg("+%Y-%m-%dT%H:%M:%S")
        .output()
        .unwrap();
    let seconds = String::from_utf8(out.stdout).unwrap();
    format!("{}.{:03}Z", seconds.trim(), epoch_ms % 1000)
}

/// The column where `word` starts in `header`.
fn column(header: &str, word: &str) -> usize {
    header
        .find(word)
        .unwrap_or_else(|| panic!("no {word} in {header:?}"))
}

/// Whether `text` is a short duration such as `14.2s` or `850ms`.
fn is_short_duration(text: &str) -> bool {
    let number = text.strip_suffix("ms").or_else(|| text.strip_suffix('s'));
    number.is_some_and(|n| {
        let (whole, tenths) = n.split_once('.').unwrap_or((n, "0"));
        !whole.is_empty()
            && whole.bytes().all(|b| b.is_ascii_digit())
            && tenths.len() == 1
            && tenths.bytes().all(|b| b.is_ascii_digit())
    })
}

#[test]
fn status_reads_well_for_a_person() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let store = Store::connect(&served.address()).unwrap();
    let ttl = Duration::from_secs(15);
    let lease = store.locks("summaries").ttl(ttl).acquire(42).unwrap();
    let permit = store.semaphore("pool", 2).acquire("workers").unwrap();
    let waiter = wait_for(&served.address(), "summaries", "42");

    let text = status(&served.address(), false);
    let lines: Vec<&str> = text.lines().collect();
    let fence = lease.fence();
    let date = utc_date(fence.epoch());
    assert_eq!(lines[0], format!("epoch    {} ({date})", fence.epoch()));
    let shown_fence = format!("{fence} ({date} #{})", fence.count());
    assert_eq!(lines[1], format!("fences   1 given, last {shown_fence}"));
    assert_eq!(lines[2], "held     2");

    // The held table: each cell starts under its header (TTL and LEFT,
    // numbers, end under theirs).
    let header = lines[3];
    assert!(header.starts_with("  NAME "), "{text}");
    let (key, fence_at) = (column(header, "KEY"), column(header, "FENCE"));
    let left_end = column(header, "LEFT") + "LEFT".len();
    let ttl_end = column(header, "TTL") + "TTL".len();
    let row = |name: &str| {
        *lines[4..6]
            .iter()
            .find(|l| l[2..].starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in\n{text}"))
    };
    let summaries = row("summaries");
    assert_eq!(&summaries[key..key + 3], "42 ", "{text}");
    assert_eq!(
        &summaries[fence_at..fence_at + shown_fence.len()],
        shown_fence,
        "{text}"
    );
    assert_eq!(&summaries[ttl_end - 3..ttl_end], "15s", "{text}");
    // Its holder's data: this process's HOST:PID, as it attached none.
    let data = column(header, "DATA");
    let default = tinystore::default_data();
    assert_eq!(&summaries[data..data + default.len()], &*default, "{text}");
    let left = summaries[..left_end].rsplit(' ').next().unwrap();
    assert!(is_short_duration(left), "left {left:?} in\n{text}");
    let pool = row("pool");
    assert_eq!(&pool[key..key + 8], "workers ", "{text}");
    assert!(pool[fence_at..].starts_with("permit"), "{text}");
    assert!(!text.contains("ms left"), "{text}");

    assert_eq!(lines[6], "waiting  1");
    let header = lines[7];
    let waiters_end = column(header, "WAITERS") + "WAITERS".len();
    assert_eq!(&lines[8][waiters_end - 1..waiters_end], "1", "{text}");
    assert_eq!(&lines[8][..column(header, "KEY") + 2], "  summaries  42");
    let waited = lines[8].rsplit(' ').next().unwrap();
    assert!(
        is_short_duration(waited),
        "first waited {waited:?} in\n{text}"
    );
    // The longest waits, whatever the page: the same line.
    assert_eq!(
        lines[9],
        "longest  waits: the lines whose first caller waited longest"
    );
    assert_eq!(&lines[11][..column(header, "KEY") + 2], "  summaries  42");

    // --json is the wire's status object, unchanged.
    let json: serde_json::Value = serde_json::from_str(&status(&served.address(), true)).unwrap();
    let held = json["held"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "summaries")
        .unwrap();
    assert_eq!(held["fence"], fence.to_string(), "{json}");
    assert_eq!(held["ttl_ms"], 15_000, "{json}");
    assert!(held["left_ms"].is_u64(), "{json}");
    assert_eq!(json["epoch"], fence.epoch(), "{json}");
    assert_eq!(json["waiting"][0]["waiters"], 1, "{json}");
    assert!(json["waiting"][0]["waited_ms"].is_u64(), "{json}");
    assert_eq!(json["longest_waits"][0]["key"], "42", "{json}");

    drop((lease, permit));
    waiter.join().unwrap();
}

#[test]
fn the_grace_after_an_unclean_stop_is_a_short_duration() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let mut served = Served::start(&dir, &[]);
    signal(served.pid(), libc::SIGKILL);
    served.child.wait().unwrap();
    drop(served);
    let served = Served::start(&dir, &["--grace", "1m"]);
    let text = status(&served.address(), false);
    let grace = text
        .lines()
        .find_map(|l| l.strip_prefix("grace    "))
        .unwrap_or_else(|| panic!("no grace line in\n{text}"));
    let left = grace
        .strip_suffix(" left (no grants until then)")
        .unwrap_or_else(|| panic!("{grace:?}"));
    assert!(is_short_duration(left), "{left:?}");
}
