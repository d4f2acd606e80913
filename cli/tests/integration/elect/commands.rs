//! `tinystore elect` and `tinystore leader` as a user runs them, against a
//! real `tinystore serve`: CMD runs while leading with its term in
//! TINYSTORE_FENCE, the exit status follows hold's rules, `leader` prints
//! the leader (text and `--json`) and `--watch` every change.

use crate::support::server::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const EXIT_LOST: i32 = 76;
const EXIT_WAIT_RAN_OUT: i32 = 75;
const EXIT_ERROR: i32 = 70;
const EXIT_NOT_STARTED: i32 = 127;

fn tinystore(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn elect_runs_cmd_with_its_term_and_leader_shows_it_while_it_leads() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let address = served.address();
    let none = tinystore_ok(&["leader", &address, "sched", "--json"]);
    assert_eq!(stdout(&none), "{\"value\":null,\"term\":null}\n");
    let none = tinystore_ok(&["leader", &address, "sched"]);
    assert_eq!(stdout(&none), "no leader\n");

    // CMD asks who leads, from inside its leadership, and exits 3.
    let script = format!(
        "echo fence=$TINYSTORE_FENCE text=$TINYSTORE_FENCE_TEXT; \
         '{BIN}' leader '{address}' sched --json; '{BIN}' leader '{address}' sched; exit 3"
    );
    let out = tinystore(&[
        "elect", &address, "sched", "--value", "worker 7", "--ttl", "300ms", "--", "sh", "-c",
        &script,
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "CMD's own status: {}",
        stderr(&out)
    );
    let text = stdout(&out);
    let mut lines = text.lines();
    let fence_line = lines.next().unwrap();
    let (fence, fence_text) = fence_line
        .strip_prefix("fence=")
        .and_then(|rest| rest.split_once(" text="))
        .unwrap();
    assert_eq!(fence_text.len(), 40);
    assert_eq!(fence_text.trim_start_matches('0'), fence);
    let json: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(json, serde_json::json!({"value":"worker 7","term":fence}));
    assert_eq!(lines.next().unwrap(), format!("term {fence} worker 7"));

    // It resigned when CMD ended.
    let after = tinystore_ok(&["leader", &address, "sched"]);
    assert_eq!(stdout(&after), "no leader\n");
}

#[test]
fn elect_follows_holds_exit_status_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let address = served.address();

    let long = "x".repeat(1025);
    let bad = tinystore(&["elect", &address, "sched", "--value", &long, "--", "true"]);
    assert_eq!(bad.status.code(), Some(EXIT_ERROR), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("1025"), "{}", stderr(&bad));
    let bad = tinystore(&["elect", &address, "no/slash", "--value", "v", "--", "true"]);
    assert_eq!(bad.status.code(), Some(EXIT_ERROR), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("no/slash"), "{}", stderr(&bad));

    let missing = tinystore(&[
        "elect",
        &address,
        "sched",
        "--value",
        "v",
        "--",
        "/no/such/cmd",
    ]);
    assert_eq!(
        missing.status.code(),
        Some(EXIT_NOT_STARTED),
        "{}",
        stderr(&missing)
    );

    // While one leads, another with --wait gives up: 75.
    let mut leading = Command::new(BIN)
        .args(["elect", &address, "sched", "--value", "first", "--"])
        .args(["sh", "-c", "echo ready; read line; exit 0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(leading.stdout.take().unwrap());
    expect_line(&mut out, "ready");
    let late = tinystore(&[
        "elect", &address, "sched", "--value", "second", "--wait", "100ms", "--", "true",
    ]);
    assert_eq!(
        late.status.code(),
        Some(EXIT_WAIT_RAN_OUT),
        "{}",
        stderr(&late)
    );
    let now = tinystore_ok(&["leader", &address, "sched"]);
    assert!(stdout(&now).ends_with(" first\n"), "{}", stdout(&now));
    // status shows the leadership as a held lease with the leader's value.
    let status = tinystore_ok(&["status", &address, "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let held = &status["held"][0];
    assert_eq!((&held["name"], &held["key"]), (&"sched".into(), &"".into()));
    assert_eq!(held["leader"], "first", "{status}");
    let human = stdout(&tinystore_ok(&["status", &address]));
    assert!(human.contains("sched  (leader) first"), "{human}");
    drop(leading.stdin.take());
    assert_eq!(leading.wait().unwrap().code(), Some(0));
}

#[test]
fn an_elect_stopped_past_its_ttl_exits_lost_and_its_cmd_is_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let address = served.address();
    let mut elect = Command::new(BIN)
        .args([
            "elect", &address, "sched", "--value", "paused", "--ttl", "300ms",
        ])
        .args(["--kill-after", "5s", "--", "sh", "-c"])
        .arg("trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(elect.stdout.take().unwrap());
    expect_line(&mut out, "ready");
    signal(elect.id() as i32, libc::SIGSTOP);
    // Another leads once the stopped one's leadership ran out.
    let next = tinystore_ok(&[
        "elect", &address, "sched", "--value", "next", "--wait", "20s", "--", "true",
    ]);
    assert!(next.status.success());
    signal(elect.id() as i32, libc::SIGCONT);
    let done = elect.wait_with_output().unwrap();
    let err = stderr(&done);
    assert_eq!(done.status.code(), Some(EXIT_LOST), "{err}");
    assert!(
        err.contains("lost the leadership of election sched"),
        "{err}"
    );
}

#[test]
fn an_elect_whose_server_is_killed_exits_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut elect = Command::new(BIN)
        .args(["elect", &served.address(), "sched", "--value", "v"])
        .args(["--", "sh", "-c"])
        .arg("trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(elect.stdout.take().unwrap());
    expect_line(&mut out, "ready");
    drop(served);
    let done = elect.wait_with_output().unwrap();
    let err = stderr(&done);
    assert_eq!(done.status.code(), Some(EXIT_LOST), "{err}");
    assert!(
        err.contains("lost the leadership of election sched"),
        "{err}"
    );
}

#[test]
fn leader_watch_prints_every_change_in_order_in_text_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let address = served.address();
    let watch = |json: bool| {
        let mut args = vec!["leader", address.as_str(), "sched", "--watch"];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        (child, out)
    };
    let (mut text_child, mut text) = watch(false);
    let (mut json_child, mut json) = watch(true);
    let next = |out: &mut BufReader<std::process::ChildStdout>| {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "the watch ended");
        line.trim_end().to_string()
    };
    assert_eq!(next(&mut text), "no leader");
    assert_eq!(next(&mut json), r#"{"value":null,"term":null}"#);

    let mut terms = Vec::new();
    for value in ["one", "two\nlines"] {
        let out = tinystore_ok(&[
            "elect",
            &address,
            "sched",
            "--value",
            value,
            "--",
            "sh",
            "-c",
            "echo $TINYSTORE_FENCE",
        ]);
        terms.push(stdout(&out).trim().to_string());
    }
    assert!(terms[1].parse::<u128>().unwrap() > terms[0].parse::<u128>().unwrap());
    assert_eq!(next(&mut text), format!("term {} one", terms[0]));
    assert_eq!(next(&mut text), "no leader");
    assert_eq!(next(&mut text), format!("term {} two\\nlines", terms[1]));
    assert_eq!(next(&mut text), "no leader");
    for (value, term) in [("one", &terms[0]), ("two\nlines", &terms[1])] {
        let change: serde_json::Value = serde_json::from_str(&next(&mut json)).unwrap();
        assert_eq!(change, serde_json::json!({"value":value,"term":term}));
        assert_eq!(next(&mut json), r#"{"value":null,"term":null}"#);
    }

    // The server stops: the watch says so and fails.
    drop(served);
    for child in [&mut text_child, &mut json_child] {
        assert_eq!(child.wait().unwrap().code(), Some(EXIT_ERROR));
    }
}

#[test]
fn leader_of_a_store_nobody_serves_is_unavailable_and_bad_names_invalid() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    {
        let served = Served::start(&dir, &[]);
        let bad = tinystore(&["leader", &served.address(), "bad name"]);
        assert_eq!(bad.status.code(), Some(EXIT_ERROR));
        assert!(stderr(&bad).contains("invalid"), "{}", stderr(&bad));
        assert!(stderr(&bad).contains("bad name"), "{}", stderr(&bad));
    }
    let out = tinystore(&["leader", dir.to_str().unwrap(), "sched"]);
    assert_eq!(out.status.code(), Some(EXIT_ERROR));
    assert!(stderr(&out).contains("unavailable"), "{}", stderr(&out));
    assert!(stderr(&out).contains("tinystore serve"), "{}", stderr(&out));
}
