//! `tinystore hold --data TEXT` against a real server: the data kept with
//! the lease and shown by `status` (its JSON and its DATA column), the
//! default HOST:PID of the hold process, and too long refused with the key
//! left free.

use crate::support::server::*;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `tinystore hold ARGS... -- sh -c ...`, whose CMD runs until
/// `gate` is removed.
fn hold_until_removed(args: &[&str], gate: &Path) -> Child {
    std::fs::write(gate, "").unwrap();
    let script = format!("while [ -e '{}' ]; do sleep 0.02; done", gate.display());
    Command::new(BIN)
        .arg("hold")
        .args(args)
        .args(["--", "sh", "-c", &script])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The held leases of `name` once status shows one (within 20 s).
fn held_of(address: &str, name: &str) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = tinystore_ok(&["status", address, "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let held = status["held"].as_array().unwrap();
        if let Some(h) = held.iter().find(|h| h["name"] == name) {
            return h.clone();
        }
        assert!(Instant::now() < deadline, "{name} never held: {status}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn host_name() -> String {
    let out = Command::new("hostname").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn hold_data_is_shown_by_status_and_defaults_to_host_and_pid() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let a = served.address();

    let said_gate = tmp.path().join("said");
    let said = hold_until_removed(
        &[&a, "jobs", "export", "--data", "cron on\tbuild-7"],
        &said_gate,
    );
    let plain_gate = tmp.path().join("plain");
    let plain = hold_until_removed(&[&a, "plain", "k", "--limit", "2"], &plain_gate);

    assert_eq!(held_of(&a, "jobs")["data"], "cron on\tbuild-7");
    let default = format!("{}:{}", host_name(), plain.id());
    assert_eq!(held_of(&a, "plain")["data"], default.as_str());

    // The DATA column, escaped like every cell.
    let text = String::from_utf8(tinystore_ok(&["status", &a]).stdout).unwrap();
    let header = text.lines().find(|l| l.contains("DATA")).expect(&text);
    let at = header.find("DATA").unwrap();
    let row = text.lines().find(|l| l.contains("export")).expect(&text);
    assert!(row[at..].starts_with("cron on\\tbuild-7"), "{text}");

    // Too long: refused before anything is granted, the key left free.
    let long = "x".repeat(1025);
    let out = Command::new(BIN)
        .args(["hold", &a, "long", "k", "--data", &long, "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(70));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("data must be at most 1024 bytes, not 1025"),
        "{stderr}"
    );
    let out = tinystore_ok(&["status", &a, "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        !status["held"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "long"),
        "{status}"
    );

    for (gate, child) in [(said_gate, said), (plain_gate, plain)] {
        std::fs::remove_file(gate).unwrap();
        assert_eq!(child.wait_with_output().unwrap().status.code(), Some(0));
    }
}
