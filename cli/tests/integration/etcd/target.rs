//! The `tinystore` command carries the etcd backend: an `etcd://` TARGET
//! reaches etcd in every command that takes a TARGET.
//!
//! The tests marked `ignore` need a running cluster: `make test-etcd` starts
//! one, sets TINYSTORE_ETCD to its members and runs them with `--ignored`.

use crate::etcd::support::fresh_address;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_tinystore");

fn tinystore(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// Holds jobs/a at `address` while `script` runs in `sh -c` (with the
/// store's address in $1); returns what the script printed: its first line
/// is the fence it held.
fn hold_running(address: &str, script: &str) -> (u128, String) {
    let script = format!("echo $TINYSTORE_FENCE; {script}");
    let out = tinystore(&[
        "hold", address, "jobs", "a", "--ttl", "5s", "--", "sh", "-c", &script, "sh", address,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hold on {address} failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let (fence, rest) = stdout.split_once('\n').unwrap_or((&stdout, ""));
    let fence = fence
        .parse()
        .unwrap_or_else(|_| panic!("hold printed {stdout:?}"));
    (fence, rest.to_string())
}

#[test]
fn an_etcd_target_goes_to_etcd_rather_than_being_refused_as_unsupported() {
    // Nothing listens on port 1: the command must try etcd and say it is
    // unavailable, where a build without the backend answers `invalid`.
    let out = tinystore(&["status", "etcd://127.0.0.1:1/tests/cli"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unavailable") && err.contains("etcd") && !err.contains("lacks"),
        "{err}"
    );
}

#[test]
#[ignore = "needs an etcd cluster: make test-etcd"]
fn hold_on_etcd_gives_rising_fences_and_status_shows_the_holder() {
    let address = fresh_address("hold");
    let (first, _) = hold_running(&address, "true");
    // The second holder asks for the status while it holds the key.
    let (second, json) = hold_running(&address, &format!("'{BIN}' status \"$1\" --json"));
    assert!(second > first, "{second} after {first}");

    let status: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json:?}"));
    let fence = second.to_string();
    assert_eq!(status["epoch"].as_u64(), Some((second >> 64) as u64));
    assert_eq!(status["last_fence"].as_str(), Some(fence.as_str()));
    let held = status["held"].as_array().unwrap();
    assert_eq!(held.len(), 1, "{status}");
    assert_eq!(held[0]["name"], "jobs");
    assert_eq!(held[0]["fence"].as_str(), Some(fence.as_str()));
    // hold renews its lease: the etcd session's keepalive does it.
    assert_eq!(held[0]["renewing"], true, "{status}");

    // The human status marks the lease as renewed by its holder's store.
    let (_, text) = hold_running(&address, &format!("'{BIN}' status \"$1\""));
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("jobs "))
        .unwrap_or_else(|| panic!("no jobs row in\n{text}"));
    assert!(row.trim_end().ends_with("renewed by the store"), "{text}");
}

#[test]
#[ignore = "needs an etcd cluster: make test-etcd"]
fn elect_and_leader_on_etcd_show_the_leader_and_its_term() {
    let address = fresh_address("elect");
    let script = format!("echo $TINYSTORE_FENCE; '{BIN}' leader \"$1\" sched --json");
    let out = tinystore(&[
        "elect", &address, "sched", "--value", "w-1", "--ttl", "5s", "--", "sh", "-c", &script,
        "sh", &address,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "elect on {address} failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let (term, json) = stdout.split_once('\n').unwrap();
    let shown: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(shown, serde_json::json!({"value":"w-1","term":term}));
    // It resigned when CMD ended.
    let after = tinystore(&["leader", &address, "sched", "--json"]);
    assert!(after.status.success());
    assert_eq!(
        String::from_utf8_lossy(&after.stdout),
        "{\"value\":null,\"term\":null}\n"
    );
}
