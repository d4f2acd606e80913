//! `tinystore status` whose reader stops early (`status --json | head -1`):
//! it ends with status 0 and no panic, as `leader --watch` does.

use crate::support::server::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use tinystore::blocking::Store;
use tinystore::Options;

#[test]
fn status_whose_reader_stops_early_ends_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let store = Store::connect(&served.address()).unwrap();
    // About 75 KB of JSON: more than a pipe holds, so status is still
    // writing when its reader goes.
    let keys: Vec<String> = (0..300).map(|k| format!("key-{k}")).collect();
    let _held = store
        .locks("jobs")
        .acquire_all(keys.iter().map(String::as_str), Options::default())
        .unwrap();
    let mut status = Command::new(BIN)
        .args(["status", &served.address(), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(status.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "{\n");
    let done = status.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
