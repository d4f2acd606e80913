//! The seed's scene across processes. Worker A holds chat 42 through the
//! server and is stopped with SIGSTOP past its TTL; worker B takes the key
//! with a larger fence and saves; A is resumed with SIGCONT, its save with
//! the older fence is refused by the conditional update in a shared SQLite
//! file, and A learns that its lease was lost.

use crate::support::server::*;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::time::Duration;
use tinystore::blocking::Store;

const TTL: Duration = Duration::from_millis(300);

fn env_path(name: &str) -> PathBuf {
    PathBuf::from(std::env::var(name).unwrap())
}

/// Worker A: holds chat 42 (renewing), prints its fence, waits for "save"
/// on stdin, saves with its fence, then reports whether it lost the lease.
#[test]
#[ignore = "a worker process, started by the scene test"]
fn worker_a() {
    if !is_worker() {
        return;
    }
    let store = Store::connect(&std::env::var("ADDRESS").unwrap()).unwrap();
    let lease = store.locks("summaries").ttl(TTL).acquire(42).unwrap();
    println!("A fence={}", lease.fence().text());
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    let rows = save(&env_path("CHAT_DB"), "A's summary", &lease.fence().text());
    println!("A saved rows={rows}");
    let lost = lease.wait_lost(Duration::from_secs(10));
    match lost {
        Some(reason) => println!("A lost={}", reason.code()),
        None => println!("A lost=no"),
    }
}

/// Worker B: waits for chat 42, saves with its fence, prints both.
#[test]
#[ignore = "a worker process, started by the scene test"]
fn worker_b() {
    if !is_worker() {
        return;
    }
    let store = Store::connect(&std::env::var("ADDRESS").unwrap()).unwrap();
    let summaries = store.locks("summaries").wait(Duration::from_secs(20));
    summaries
        .hold(42, |lease| -> Result<(), tinystore::Error> {
            let rows = save(&env_path("CHAT_DB"), "B's summary", &lease.fence().text());
            println!("B fence={} rows={rows}", lease.fence().text());
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_paused_holder_is_refused_and_told_it_lost_the_lease() {
    let tmp = tempfile::tempdir().unwrap();
    let chat_db = tmp.path().join("chat.db");
    make_chat_db(&chat_db);
    let served = Served::start(&tmp.path().join("store"), &[]);
    let env = [
        ("ADDRESS", served.address()),
        ("CHAT_DB", chat_db.display().to_string()),
    ];

    let mut a = worker(test_name!("worker_a"), &env);
    let mut a_out = BufReader::new(a.stdout.take().unwrap());
    let a_fence = expect_line(&mut a_out, "A fence=");
    signal(a.id() as i32, libc::SIGSTOP);

    // B waits in line until A's lease runs out: A renews no more.
    let b = worker(test_name!("worker_b"), &env);
    let b_done = b.wait_with_output().unwrap();
    assert!(b_done.status.success());
    let b_line = String::from_utf8(b_done.stdout).unwrap();
    let b_line = b_line.lines().find(|l| l.starts_with("B fence=")).unwrap();
    let (b_fence, b_rows) = b_line["B fence=".len()..].split_once(" rows=").unwrap();
    assert!(
        b_fence > a_fence.as_str(),
        "B's fence {b_fence} is not above A's {a_fence}"
    );
    assert_eq!(b_rows, "1");

    a.stdin.as_mut().unwrap().write_all(b"save\n").unwrap();
    signal(a.id() as i32, libc::SIGCONT);
    assert_eq!(expect_line(&mut a_out, "A saved rows="), "0");
    assert_eq!(expect_line(&mut a_out, "A lost="), "lease_lost");
    assert!(a.wait().unwrap().success());

    let (summary, fence) = saved(&chat_db);
    assert_eq!(summary, "B's summary");
    assert_eq!(fence, b_fence);
}
