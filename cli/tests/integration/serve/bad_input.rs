//! Malformed and hostile requests, each answered with the right error code,
//! while another client holds a lease and acquires and releases keys
//! undisturbed.

use crate::support::server::*;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tinystore::blocking::Store;

/// A line and the error code its reply must carry.
fn unix_cases() -> Vec<(String, &'static str)> {
    let long_name = "n".repeat(200);
    let long_key = "k".repeat(2000);
    let acquire = |fields: &str| format!(r#"{{"id":7,"op":"acquire",{fields}}}"#);
    vec![
        ("{not json".into(), "invalid"),
        ("[1,2,3]".into(), "invalid"),
        (r#""hello""#.into(), "invalid"),
        ("null".into(), "invalid"),
        (r#"{"id":1}"#.into(), "invalid"),
        (r#"{"id":1,"op":5}"#.into(), "invalid"),
        (r#"{"id":1,"op":"explode"}"#.into(), "invalid"),
        (r#"{"id":-1,"op":"ping"}"#.into(), "invalid"),
        (r#"{"id":"one","op":"ping"}"#.into(), "invalid"),
        (r#"{"id":1.5,"op":"ping"}"#.into(), "invalid"),
        (r#"{"op":"ping"}"#.into(), "invalid"),
        (r#"{"id":1,"op":"ping","extra":true}"#.into(), "invalid"),
        (r#"{"id":1,"op":"hello","version":1}"#.into(), "invalid"),
        (acquire(r#""key":"k""#), "invalid"),
        (acquire(r#""name":7,"key":"k""#), "invalid"),
        (acquire(r#""name":"has space","key":"k""#), "invalid"),
        (
            acquire(&format!(r#""name":"{long_name}","key":"k""#)),
            "invalid",
        ),
        (acquire(r#""name":"a","key":"""#), "invalid"),
        (
            acquire(&format!(r#""name":"a","key":"{long_key}""#)),
            "invalid",
        ),
        (acquire(r#""name":"a","key":{"nested":1}"#), "invalid"),
        (acquire(r#""name":"a","key":"k","ttl_ms":-5"#), "invalid"),
        (acquire(r#""name":"a","key":"k","ttl_ms":1"#), "invalid"),
        (
            acquire(r#""name":"a","key":"k","ttl_ms":99999999999999"#),
            "invalid",
        ),
        (acquire(r#""name":"a","key":"k","ttl_ms":"100""#), "invalid"),
        (acquire(r#""name":"a","key":"k","ttl_ms":1e400"#), "invalid"),
        (
            acquire(r#""name":"a","key":"k","wait_ms":999999999999999"#),
            "invalid",
        ),
        (acquire(r#""name":"a","key":"k","limit":0"#), "invalid"),
        (acquire(r#""name":"a","key":"k","limit":-3"#), "invalid"),
        (
            r#"{"id":1,"op":"try_acquire","name":"a","key":"k","wait_ms":5}"#.into(),
            "invalid",
        ),
        (r#"{"id":1,"op":"renew"}"#.into(), "invalid"),
        (r#"{"id":1,"op":"renew","lease":42}"#.into(), "invalid"),
        (
            r#"{"id":1,"op":"release","lease":"no-such-lease"}"#.into(),
            "lease_lost",
        ),
        (
            r#"{"id":1,"op":"renew","lease":"99999999"}"#.into(),
            "lease_lost",
        ),
        (r#"{"id":1,"op":"cancel","target":"x"}"#.into(), "invalid"),
        (
            r#"{"id":1,"op":"backup","path":"relative/kv.db"}"#.into(),
            "invalid",
        ),
        (
            r#"{"id":1,"op":"backup","path":"/nonexistent-dir/x/kv.db"}"#.into(),
            "io",
        ),
    ]
}

/// Lines refused with `invalid`, each with the words its message must hold.
fn message_cases() -> Vec<(String, Vec<&'static str>)> {
    let acquire = |fields: &str| format!(r#"{{"op":"acquire",{fields}}}"#);
    vec![
        (
            acquire(r#""id":7,"name":"a","key":{"nested":1}"#),
            vec!["\"key\""],
        ),
        (
            acquire(r#""id":7,"name":"a","key":true"#),
            vec!["\"key\"", "string or an integer"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","ttl_ms":"100""#),
            vec!["\"ttl_ms\"", "milliseconds"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","ttl_ms":0"#),
            vec!["ttl_ms 0", "10 to 86400000"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","limit":null"#),
            vec!["\"limit\"", "null"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","ttl_ms":null"#),
            vec!["\"ttl_ms\"", "null"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","wait_ms":null"#),
            vec!["\"wait_ms\"", "null"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","limit":5000000000"#),
            vec!["\"limit\"", "whole number"],
        ),
        (
            acquire(r#""id":7,"name":7,"key":"k""#),
            vec!["\"name\"", "string"],
        ),
        (
            r#"{"id":1,"id":2,"op":"ping"}"#.into(),
            vec!["\"id\"", "twice"],
        ),
        (
            acquire(r#""id":7,"name":"a","key":"k","key":"j""#),
            vec!["\"key\"", "twice"],
        ),
        (
            format!(
                r#"{{"id":7,"op":"campaign","name":"e","value":"{}"}}"#,
                "v".repeat(1025)
            ),
            vec!["value of election e", "1025"],
        ),
        (
            r#"{"id":7,"op":"campaign","name":"e","value":7}"#.into(),
            vec!["\"value\"", "string"],
        ),
        (
            r#"{"id":7,"op":"campaign","name":"e/x","value":""}"#.into(),
            vec!["e/x", "A-Z a-z 0-9"],
        ),
        (
            r#"{"id":7,"op":"campaign","name":"e","value":"","ttl_ms":5}"#.into(),
            vec!["ttl_ms 5"],
        ),
        (
            r#"{"id":7,"op":"observe","name":""}"#.into(),
            vec!["name \"\"", "1 to 128"],
        ),
        (
            r#"{"id":7,"op":"leader","name":"e","key":"k"}"#.into(),
            vec!["key"],
        ),
    ]
}

/// Another client's steady work: holds a renewed lease, and acquires and
/// releases a key in a loop; counts rounds, and fails on any error. The
/// held lease is renewed every 2/3 s: only a stall of the server or a broken
/// connection, not a busy machine, can take it.
fn bystander(address: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let store = Store::connect(&address).unwrap();
        let held = store
            .locks("bystander")
            .ttl(Duration::from_millis(2000))
            .acquire("held")
            .unwrap();
        let locks = store.locks("bystander");
        let mut rounds = 0;
        let mut last = held.fence();
        while !stop.load(Ordering::SeqCst) || rounds < 20 {
            let lease = locks.acquire(rounds).unwrap();
            assert!(lease.fence() > last);
            last = lease.fence();
            lease.release().unwrap();
            rounds += 1;
        }
        assert!(held.is_held(), "the bystander's lease was disturbed");
        held.release().unwrap();
        rounds
    })
}

fn code(reply: &Value) -> &str {
    reply["error"]["code"].as_str().unwrap_or("<none>")
}

#[test]
fn hostile_requests_get_the_right_codes_and_disturb_nobody() {
    let tmp = tempfile::tempdir().unwrap();
    let token_file = tmp.path().join("token");
    std::fs::write(&token_file, "a-token-of-sixteen-bytes-or-more\n").unwrap();
    let served = Served::start(
        &tmp.path().join("store"),
        &[
            "--tcp",
            "127.0.0.1:0",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let worker = bystander(served.address(), stop.clone());
    let mut checked = 0;

    let mut raw = Raw::unix(&served.socket(), true);
    for (line, want) in unix_cases() {
        let reply = raw.ask(&line);
        assert_eq!(reply["ok"], false, "{line} -> {reply}");
        assert_eq!(code(&reply), want, "{line} -> {reply}");
        assert!(!reply["error"]["message"].as_str().unwrap().is_empty());
        checked += 1;
    }
    // After all that, the same connection still works.
    assert_eq!(raw.ask(r#"{"id":100,"op":"ping"}"#)["ok"], true);

    // Bytes that are not UTF-8, and a frame over 64 KiB.
    let reply = raw.ask_bytes(&[b'{', 0xff, 0xfe, b'}']);
    assert_eq!(code(&reply), "invalid", "{reply}");
    let huge = format!(r#"{{"id":1,"op":"ping","pad":"{}"}}"#, "x".repeat(100_000));
    let reply = raw.ask(&huge);
    assert_eq!(code(&reply), "limit", "{reply}");
    checked += 2;

    // Another connection's lease id can be neither renewed nor released.
    let mut owner = Raw::unix(&served.socket(), true);
    let granted = owner.ask(r#"{"id":1,"op":"acquire","name":"theirs","key":"k"}"#);
    let lease = granted["lease"].as_str().unwrap().to_string();
    for op in ["renew", "release"] {
        let reply = raw.ask(&format!(r#"{{"id":2,"op":"{op}","lease":"{lease}"}}"#));
        assert_eq!(code(&reply), "lease_lost", "{op} -> {reply}");
        checked += 1;
    }
    let mine = owner.ask(&format!(r#"{{"id":3,"op":"renew","lease":"{lease}"}}"#));
    assert_eq!(mine["ok"], true, "{mine}");

    // A semaphore key asked with another limit while held; a waiting id reused.
    let sem = r#"{"id":4,"op":"acquire","name":"sem","key":"k","limit":2}"#;
    assert_eq!(owner.ask(sem)["ok"], true);
    let other_limit = raw.ask(r#"{"id":5,"op":"try_acquire","name":"sem","key":"k","limit":3}"#);
    assert_eq!(code(&other_limit), "invalid", "{other_limit}");
    owner.send_bytes(br#"{"id":9,"op":"acquire","name":"theirs","key":"k"}"#.as_slice());
    let reused = owner.ask(r#"{"id":9,"op":"acquire","name":"theirs","key":"k"}"#);
    assert_eq!(code(&reused), "invalid", "{reused}");
    let reused = owner.ask(r#"{"id":9,"op":"try_acquire","name":"theirs","key":"free"}"#);
    assert_eq!(
        code(&reused),
        "invalid",
        "try_acquire reusing a waiting id: {reused}"
    );
    checked += 3;

    // Messages name the field and its unit, and no type of the server's code.
    for (line, names) in message_cases() {
        let reply = raw.ask(&line);
        assert_eq!(code(&reply), "invalid", "{line} -> {reply}");
        assert_ne!(reply["id"], 2, "{line}: answered as the last id given");
        let message = reply["error"]["message"].as_str().unwrap();
        for word in names {
            assert!(message.contains(word), "{line}: {message:?} lacks {word:?}");
        }
        for internal in ["enum", "WireKey", "untagged", "u32", "u64", "ns "] {
            assert!(!message.contains(internal), "{line}: {message:?}");
        }
        checked += 1;
    }

    // A backup onto a file that cannot take one says why, in words.
    let not_a_db = tmp.path().join("notes.txt");
    std::fs::write(&not_a_db, "some notes, not a database\n".repeat(100)).unwrap();
    for (path, want) in [
        (not_a_db.to_str().unwrap(), "invalid"),
        ("/proc/version", "io"),
    ] {
        let reply = raw.ask(&format!(r#"{{"id":3,"op":"backup","path":"{path}"}}"#));
        assert_eq!(code(&reply), want, "{path}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(!message.contains("not an error"), "{message}");
        assert!(message.contains(path), "{message}");
        checked += 1;
    }

    // Before hello: on the Unix socket an error; a second version refused.
    let mut early = Raw::unix(&served.socket(), false);
    assert_eq!(code(&early.ask(r#"{"id":1,"op":"ping"}"#)), "invalid");
    assert_eq!(code(&early.ask(r#"{"op":"hello","version":2}"#)), "invalid");
    checked += 2;

    // TCP: nothing before authentication; a wrong or missing token refused.
    let tcp = served.tcp_addr().expect("the server serves TCP");
    for first in [
        r#"{"id":1,"op":"acquire","name":"a","key":"k"}"#,
        r#"{"op":"hello","version":1}"#,
        r#"{"op":"hello","version":1,"token":"a-token-of-sixteen-bytes-or-morf"}"#,
        r#"{"op":"hello","version":1,"token":"short"}"#,
        "garbage",
    ] {
        let mut conn = Raw::tcp(&tcp);
        let reply = conn.ask(first);
        assert_eq!(code(&reply), "unauthorized", "{first} -> {reply}");
        assert!(conn.is_closed(), "{first}: the connection stayed open");
        checked += 1;
    }
    // Before hello on TCP: a long line is refused at once, not read on; the
    // right token with another version is answered and closed; silence is
    // closed after the strangers' deadline.
    let mut long = Raw::tcp(&tcp);
    long.send_raw(&[b'x'; 5000]);
    let reply = long.next().expect("an answer to the long line");
    assert_eq!(code(&reply), "unauthorized", "{reply}");
    let limit = tinystore::server::MAX_STRANGER_FRAME_BYTES.to_string();
    assert!(
        reply["error"]["message"].as_str().unwrap().contains(&limit),
        "{reply}"
    );
    assert!(
        long.ended_by_server(),
        "the long line's connection stayed open"
    );
    let mut other_version = Raw::tcp(&tcp);
    let reply = other_version.ask(&format!(
        r#"{{"op":"hello","version":2,"token":"{}"}}"#,
        "a-token-of-sixteen-bytes-or-more"
    ));
    assert_eq!(code(&reply), "invalid", "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("version"));
    assert!(other_version.ended_by_server(), "version 2 stayed open");
    let mut silent = Raw::tcp(&tcp);
    let reply = silent.next().expect("the silent connection is told why");
    assert_eq!(code(&reply), "unauthorized", "{reply}");
    let deadline = format!("{:?}", tinystore::server::STRANGER_TIMEOUT);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&deadline),
        "{reply}"
    );
    assert!(silent.ended_by_server());
    checked += 3;

    let mut authed = Raw::tcp(&tcp);
    let hello =
        authed.ask(r#"{"op":"hello","version":1,"token":"a-token-of-sixteen-bytes-or-more"}"#);
    assert_eq!(hello["ok"], true, "{hello}");
    assert!(hello["epoch"].as_str().unwrap().parse::<u64>().is_ok());
    let backup = authed.ask(r#"{"id":1,"op":"backup","path":"/tmp/x.db"}"#);
    assert_eq!(code(&backup), "unauthorized", "{backup}");
    checked += 1;
    let acquired = authed.ask(r#"{"id":2,"op":"acquire","name":"tcp","key":1,"ttl_ms":500}"#);
    assert_eq!(acquired["granted"], true, "{acquired}");
    assert!(acquired["fence"].as_str().unwrap().parse::<u128>().is_ok());

    stop.store(true, Ordering::SeqCst);
    let rounds = worker.join().expect("the bystander failed");
    assert!(rounds >= 20);
    assert!(checked >= 25, "only {checked} hostile requests");
}

#[test]
fn per_connection_limits_are_enforced() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut raw = Raw::unix(&served.socket(), true);
    let leases = tinystore::server::MAX_LEASES_PER_CONNECTION;
    // Pipelined in batches: a client must read its replies, or the server
    // stops reading its requests.
    for batch in (0..leases).collect::<Vec<_>>().chunks(256) {
        for i in batch {
            let line = format!(r#"{{"id":{i},"op":"try_acquire","name":"many","key":{i}}}"#);
            raw.send_bytes(line.as_bytes());
        }
        for _ in batch {
            let reply = raw.next().unwrap();
            assert_eq!(reply["granted"], true, "{reply}");
        }
    }
    let over = raw.ask(r#"{"id":1,"op":"try_acquire","name":"many","key":"one-more"}"#);
    assert_eq!(code(&over), "limit", "{over}");
    assert!(over["error"]["message"]
        .as_str()
        .unwrap()
        .contains(&leases.to_string()));

    let mut waits = Raw::unix(&served.socket(), true);
    let waiters = tinystore::server::MAX_WAITERS_PER_CONNECTION;
    for i in 0..waiters {
        let line = format!(r#"{{"id":{i},"op":"acquire","name":"many","key":0}}"#);
        waits.send_bytes(line.as_bytes());
    }
    let over = waits.ask(r#"{"id":999999,"op":"acquire","name":"many","key":0}"#);
    assert_eq!(code(&over), "limit", "{over}");
    // Closing the first connection frees its keys: the first waiter gets one.
    drop(raw);
    let first = waits.next().unwrap();
    assert_eq!(first["id"], 0, "{first}");
    assert_eq!(first["granted"], true, "{first}");
}
