//! Faults and security at the server's edges: the socket's mode, a stale
//! socket of a dead server replaced while a live one's is refused, a
//! corrupt kv.db, a read-only store directory. Each ends in a clear error
//! and loses nothing.

use crate::support::server::{Raw, Served, BIN};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn serve_fails(dir: &std::path::Path) -> String {
    let out = Command::new(BIN).arg("serve").arg(dir).output().unwrap();
    assert!(!out.status.success(), "serve must refuse {}", dir.display());
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn the_socket_is_mode_0600() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mode = std::fs::metadata(served.socket())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "socket mode {mode:o}");
}

#[test]
fn a_stale_socket_of_a_dead_server_is_replaced_and_a_live_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let mut first = Served::start(&dir, &[]);
    let mut raw = Raw::unix(&first.socket(), true);
    let reply = raw.ask(r#"{"id":1,"op":"acquire","name":"a","key":"k","ttl_ms":60000}"#);
    let before: u128 = reply["fence"].as_str().unwrap().parse().unwrap();

    // A live server's directory: a second serve is refused with in_use,
    // naming where it is served.
    let said = serve_fails(&dir);
    assert!(said.contains("in_use"), "{said}");
    assert!(
        said.contains(&first.socket().display().to_string()),
        "{said}"
    );

    // A dead server leaves its socket file behind; the next serve replaces it.
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    assert!(first.socket().exists(), "SIGKILL leaves the socket file");
    let second = Served::start(&dir, &["--grace", "50ms"]);
    let mut raw = Raw::unix(&second.socket(), true);
    let reply = raw.ask(r#"{"id":1,"op":"acquire","name":"a","key":"k","ttl_ms":60000}"#);
    let after: u128 = reply["fence"].as_str().unwrap().parse().unwrap();
    assert!(after > before, "{after} > {before}");
}

#[test]
fn a_corrupt_kv_db_is_refused_with_corrupt_and_left_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    std::fs::create_dir_all(&dir).unwrap();
    let junk = vec![0x5Au8; 16384];
    std::fs::write(dir.join("kv.db"), &junk).unwrap();
    let said = serve_fails(&dir);
    assert!(said.contains("corrupt"), "{said}");
    assert!(said.contains("kv.db"), "names the file: {said}");
    assert_eq!(
        std::fs::read(dir.join("kv.db")).unwrap(),
        junk,
        "nothing was overwritten"
    );
}

#[test]
fn an_unwritable_store_directory_is_refused_with_io() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    Served::start(&dir, &[]); // made and closed by SIGKILL on drop
    let ro = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"])
        .arg(&dir)
        .status();
    let mounted = ro.is_ok_and(|s| s.success());
    if !mounted {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let said = serve_fails(&dir);
    if mounted {
        let _ = Command::new("umount").arg(&dir).status();
    } else {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert!(said.contains("io"), "{said}");
    assert!(
        said.contains(&dir.display().to_string()),
        "names the directory: {said}"
    );
}

#[test]
fn a_connection_past_the_limit_is_refused_with_limit_and_the_others_carry_on() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let limit = tinystore::server::MAX_CONNECTIONS;
    let mut open: Vec<Raw> = (0..limit)
        .map(|_| Raw::unix(&served.socket(), false))
        .collect();
    let mut extra = Raw::unix(&served.socket(), false);
    let refused = extra.next().expect("the server says why it refuses");
    assert_eq!(refused["error"]["code"], "limit", "{refused}");
    assert!(extra.is_closed());
    let reply = open[0].ask(r#"{"op":"hello","version":1}"#);
    assert_eq!(
        reply["ok"], true,
        "the connections within the limit carry on: {reply}"
    );
    open.truncate(1);
}
