//! Late writes refused by guards, told to a real `tinystore serve`: the
//! SQLite guard given the lease itself refuses a stale write and tells the
//! server, which counts it per group in `tinystore status` (text and
//! JSON) and in the metric `tinystore_late_writes_refused_total`, scraped;
//! a refusal while the server is stopped (SIGSTOP) or gone returns at
//! once, refused as ever; and the one-way `refused_write` on the wire.

use super::metrics::{metrics_addr, scrape};
use crate::support::server::*;
use rusqlite::Connection;
use std::time::Duration;
use tinystore::blocking::{Lease, Store};
use tinystore::guard::rusqlite::{check, ensure};
use tinystore::Code;

/// A lease overtaken by a newer one that wrote first: it now writes late.
fn overtaken(store: &Store, db: &mut Connection, name: &str) -> Lease {
    let group = store.locks(name);
    let old = group.acquire("1").unwrap();
    old.release().unwrap();
    let fresh = group.acquire("1").unwrap();
    let tx = db.transaction().unwrap();
    check(&tx, &format!("{name}/1"), &fresh).unwrap();
    tx.commit().unwrap();
    old
}

fn late_write(db: &mut Connection, name: &str, old: &Lease) -> tinystore::Error {
    let tx = db.transaction().unwrap();
    check(&tx, &format!("{name}/1"), old).unwrap_err()
}

fn refused_total(addr: &str, name: &str) -> f64 {
    let series = format!("tinystore_late_writes_refused_total{{kind=\"lock\",name=\"{name}\"}}");
    scrape(addr).get(&series).copied().unwrap_or(0.0)
}

/// `tinystore status --json`'s late_writes_refused, once it is `want` (the
/// server counts a message that comes after the guard's answer).
fn until_counted(dir: &str, want: serde_json::Value) {
    let mut got = serde_json::Value::Null;
    for _ in 0..500 {
        let out = tinystore_ok(&["status", dir, "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        got = status["late_writes_refused"].clone();
        if got == want {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(got, want);
}

#[test]
fn a_served_store_counts_late_writes_and_a_stopped_one_never_blocks_them() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &["--metrics", "127.0.0.1:0"]);
    let dir = served.dir.to_str().unwrap().to_string();
    let addr = metrics_addr(&served);
    let store = Store::connect(&served.address()).unwrap();
    let mut db = Connection::open(tmp.path().join("app.db")).unwrap();
    ensure(&db).unwrap();

    // Every group granted has its series, at 0 until a refusal.
    let old = overtaken(&store, &mut db, "orders");
    assert_eq!(refused_total(&addr, "orders"), 0.0);
    assert_eq!(late_write(&mut db, "orders", &old).code(), Code::Stale);
    let tx = db.transaction().unwrap();
    let by_fence = check(&tx, "orders/1", old.fence()).unwrap_err();
    assert_eq!(by_fence.code(), Code::Stale); // the fence alone: told to nobody
    drop(tx);
    let old_invoice = overtaken(&store, &mut db, "invoices");
    late_write(&mut db, "invoices", &old_invoice);
    until_counted(
        &dir,
        serde_json::json!([
            {"name": "invoices", "kind": "lock", "refused": 1},
            {"name": "orders", "kind": "lock", "refused": 1},
        ]),
    );
    assert_eq!(refused_total(&addr, "orders"), 1.0);
    assert_eq!(refused_total(&addr, "invoices"), 1.0);
    let text = String::from_utf8(tinystore_ok(&["status", &dir]).stdout).unwrap();
    assert!(text.contains("late writes refused by guards"), "{text}");
    let row = text.lines().find(|l| l.contains("orders")).unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        ["orders", "lock", "1"],
        "{text}"
    );

    // Stopped: the refusal is the guard's at once; the message waits in
    // the socket and is counted when the server goes on.
    let old = overtaken(&store, &mut db, "stopped");
    signal(served.pid(), libc::SIGSTOP);
    let (tx, rx) = std::sync::mpsc::channel();
    let path = tmp.path().join("app.db");
    let writer = std::thread::spawn(move || {
        let mut db = Connection::open(path).unwrap();
        let _ = tx.send(late_write(&mut db, "stopped", &old).code());
        old
    });
    // A bound on a hang, not a measure.
    let refused = rx.recv_timeout(Duration::from_secs(30));
    signal(served.pid(), libc::SIGCONT);
    assert_eq!(
        refused,
        Ok(Code::Stale),
        "the refusal waited for a stopped server"
    );
    let old = writer.join().unwrap();
    until_counted(
        &dir,
        serde_json::json!([
            {"name": "invoices", "kind": "lock", "refused": 1},
            {"name": "orders", "kind": "lock", "refused": 1},
            {"name": "stopped", "kind": "lock", "refused": 1},
        ]),
    );

    // Gone: still refused, told to nobody.
    signal(served.pid(), libc::SIGKILL);
    assert_eq!(late_write(&mut db, "stopped", &old).code(), Code::Stale);
}

#[test]
fn refused_write_is_one_way_and_a_bad_one_is_invalid_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut raw = Raw::unix(&served.socket(), true);
    raw.send_bytes(b"{\"op\":\"refused_write\",\"kind\":\"lock\",\"name\":\"orders\",\"resource\":\"chats/42\"}");
    // Never answered: the next reply is the ping's.
    let pong = raw.ask(r#"{"id":1,"op":"ping"}"#);
    assert_eq!(pong["id"], 1, "{pong}");
    let status = raw.ask(r#"{"id":2,"op":"status"}"#);
    assert_eq!(
        status["status"]["late_writes_refused"],
        serde_json::json!([{"name": "orders", "kind": "lock", "refused": 1}])
    );

    let bad = raw.ask(r#"{"op":"refused_write","kind":"table","name":"orders","resource":"r"}"#);
    assert_eq!(bad["ok"], false, "{bad}");
    assert!(bad.get("id").is_none_or(|id| id.is_null()), "{bad}");
    assert_eq!(bad["error"]["code"], "invalid", "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"kind\""),
        "{bad}"
    );
    let bad = raw.ask(r#"{"op":"refused_write","kind":"lock","name":"orders","resource":""}"#);
    assert_eq!(bad["error"]["code"], "invalid", "{bad}");
    let bad = raw.ask(r#"{"op":"refused_write","kind":"lock","name":"orders"}"#);
    assert_eq!(bad["error"]["code"], "invalid", "{bad}");
}
