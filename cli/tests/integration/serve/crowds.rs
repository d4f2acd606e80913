//! Crowds against a real `tinystore serve`: connections full of waiters
//! closing at once, and a bystander that must not notice.

use crate::support::server::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tests here load the machine; they run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// The number of callers waiting for `name/key`, from `status`.
fn waiters(raw: &mut Raw, name: &str, key: &str) -> u64 {
    let status = raw.ask(r#"{"id":1,"op":"status"}"#);
    let waiting = status["status"]["waiting"].as_array().unwrap().clone();
    waiting
        .iter()
        .find(|w| w["name"] == name && w["key"] == key)
        .map_or(0, |w| w["waiters"].as_u64().unwrap())
}

/// What the bystander saw: every renewal of its 300 ms lease succeeded and
/// no `lost` event came; the slowest ping's answer time.
struct Seen {
    renewals: usize,
    slowest_ping: Duration,
}

/// A client holding a 300 ms lease and renewing it every 100 ms, with a
/// ping each time, until `stop`. Panics (failing the test) on any error
/// or `lost` event.
fn bystander(socket: std::path::PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Seen> {
    std::thread::spawn(move || {
        let mut raw = Raw::unix(&socket, true);
        let got = raw.ask(r#"{"id":1,"op":"acquire","name":"bystander","key":"k","ttl_ms":300}"#);
        assert_eq!(got["granted"], true, "{got}");
        let lease = got["lease"].as_str().unwrap().to_string();
        let mut seen = Seen {
            renewals: 0,
            slowest_ping: Duration::ZERO,
        };
        let mut id = 10;
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
            id += 2;
            let asked = Instant::now();
            raw.send_bytes(format!(r#"{{"id":{id},"op":"renew","lease":"{lease}"}}"#).as_bytes());
            raw.send_bytes(format!(r#"{{"id":{},"op":"ping"}}"#, id + 1).as_bytes());
            for _ in 0..2 {
                let frame = raw.next().expect("the bystander's connection closed");
                assert!(
                    frame.get("event").is_none(),
                    "the bystander was told {frame}"
                );
                assert_eq!(frame["ok"], true, "the bystander got {frame}");
            }
            seen.slowest_ping = seen.slowest_ping.max(asked.elapsed());
            seen.renewals += 1;
        }
        seen
    })
}

#[test]
fn closing_connections_full_of_waiters_drains_fast_and_stalls_nobody() {
    let _one = one_at_a_time();
    const CONNECTIONS: usize = 24;
    let per_connection = tinystore::server::MAX_WAITERS_PER_CONNECTION;
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut holder = Raw::unix(&served.socket(), true);
    let held = holder.ask(r#"{"id":1,"op":"acquire","name":"crowd","key":"k"}"#);
    assert_eq!(held["granted"], true, "{held}");

    // Each connection queues its full share of acquires on the held key.
    let mut crowd = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut conn = Raw::unix(&served.socket(), true);
        let mut lines = Vec::new();
        for i in 0..per_connection {
            lines.extend_from_slice(
                format!(r#"{{"id":{i},"op":"acquire","name":"crowd","key":"k"}}"#).as_bytes(),
            );
            lines.push(b'\n');
        }
        conn.send_raw(&lines);
        crowd.push(conn);
    }
    let all = (CONNECTIONS * per_connection) as u64;
    let queued_by = Instant::now() + Duration::from_secs(120);
    while waiters(&mut holder, "crowd", "k") < all {
        assert!(Instant::now() < queued_by, "the acquires never all queued");
        std::thread::sleep(Duration::from_millis(50));
    }

    let stop = Arc::new(AtomicBool::new(false));
    let watcher = bystander(served.socket(), stop.clone());
    std::thread::sleep(Duration::from_millis(350));

    // Every crowded connection closes at once; the line must empty quickly.
    let closed = Instant::now();
    for conn in &crowd {
        conn.shutdown();
    }
    drop(crowd);
    let mut status = Raw::unix(&served.socket(), true);
    while waiters(&mut status, "crowd", "k") > 0 {
        assert!(
            closed.elapsed() < Duration::from_secs(60),
            "the waiters were never dropped"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let drained = closed.elapsed();
    // The bystander carries on through and past the drain.
    std::thread::sleep(Duration::from_millis(350));
    stop.store(true, Ordering::SeqCst);
    let seen = watcher
        .join()
        .expect("the bystander lost its lease or a reply");
    eprintln!(
        "{all} waiters drained in {drained:?}; the bystander renewed {} times, slowest ping {:?}",
        seen.renewals, seen.slowest_ping
    );
    assert!(
        drained < Duration::from_secs(1),
        "{all} waiters took {drained:?} to drain"
    );
    assert!(seen.renewals >= 5, "only {} renewals", seen.renewals);
    // The holder still holds the key, and the next acquire waits for it alone.
    let lease = held["lease"].as_str().unwrap();
    let renewed = holder.ask(&format!(r#"{{"id":2,"op":"renew","lease":"{lease}"}}"#));
    assert_eq!(renewed["ok"], true, "{renewed}");
}

const TOKEN: &str = "a-token-of-sixteen-bytes-or-more";

/// A server on its Unix socket and on TCP with [`TOKEN`].
fn served_with_tcp(tmp: &std::path::Path) -> Served {
    let token_file = tmp.join("token");
    std::fs::write(&token_file, TOKEN).unwrap();
    Served::start(
        &tmp.join("store"),
        &[
            "--tcp",
            "127.0.0.1:0",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
    )
}

/// A client that works: a ping and an acquire of its own key answered.
fn works(raw: &mut Raw, key: &str) {
    let ping = raw.ask(r#"{"id":1,"op":"ping"}"#);
    assert_eq!(ping["ok"], true, "{ping}");
    let got = raw.ask(&format!(
        r#"{{"id":2,"op":"acquire","name":"members","key":"{key}","wait_ms":5000}}"#
    ));
    assert_eq!(got["granted"], true, "{got}");
}

#[test]
fn strangers_on_tcp_cannot_lock_out_unix_clients_or_tcp_clients_with_the_token() {
    let _one = one_at_a_time();
    raise_fd_limit();
    let tmp = tempfile::tempdir().unwrap();
    let served = served_with_tcp(tmp.path());
    let tcp = served.tcp_addr().unwrap();
    // More connections than the whole cap, none of which ever says hello.
    let strangers: Vec<std::net::TcpStream> = (0..1_030)
        .map(|_| std::net::TcpStream::connect(&tcp).unwrap())
        .collect();

    let mut unix = Raw::unix(&served.socket(), true);
    works(&mut unix, "unix");
    // The client with the token waits behind them in the listen backlog,
    // while the oldest strangers are closed, a grace after they came.
    let asked = Instant::now();
    let mut member = Raw::tcp(&tcp);
    let hello = member.ask(&format!(
        r#"{{"op":"hello","version":1,"token":"{TOKEN}"}}"#
    ));
    assert_eq!(hello["ok"], true, "{hello}");
    eprintln!(
        "the client with the token was served after {:?}",
        asked.elapsed()
    );
    works(&mut member, "tcp");

    // The first strangers were closed to make room, and told why.
    let stream = strangers[0].try_clone().unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stream), &mut line).unwrap();
    let told: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(told["error"]["code"], "unauthorized", "{told}");
}

#[test]
fn status_with_65536_leases_held_is_bounded_and_says_more_exist() {
    let _one = one_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let per_connection = tinystore::server::MAX_LEASES_PER_CONNECTION;
    let mut holders = Vec::new();
    for c in 0..16 {
        let mut raw = Raw::unix(&served.socket(), true);
        // Pipelined in batches: a client must read its replies as it goes.
        for batch in (0..per_connection).collect::<Vec<_>>().chunks(512) {
            let mut lines = Vec::new();
            for i in batch {
                lines.extend_from_slice(
                    format!(r#"{{"id":{i},"op":"try_acquire","name":"many","key":"{c}-{i}"}}"#)
                        .as_bytes(),
                );
                lines.push(b'\n');
            }
            raw.send_raw(&lines);
            for _ in batch {
                let reply = raw.next().unwrap();
                assert_eq!(reply["granted"], true, "{reply}");
            }
        }
        holders.push(raw);
    }
    let all = 16 * per_connection;
    let mut asker = Raw::unix(&served.socket(), true);

    let reply = asker.ask(r#"{"id":1,"op":"status"}"#);
    let size = serde_json::to_string(&reply).unwrap().len();
    let status = &reply["status"];
    let default = tinystore::DEFAULT_STATUS_LIMIT;
    assert_eq!(status["held"].as_array().unwrap().len(), default);
    assert_eq!(status["held_total"], all);
    assert_eq!(status["more"], true);
    assert!(size < 512 * 1024, "a default status of {size} bytes");
    // The first page is the first leases in order.
    assert_eq!(status["held"][0]["key"], "0-0", "{}", status["held"][0]);

    // Page by page, every lease is seen once, in order.
    let max = tinystore::MAX_STATUS_LIMIT;
    let mut seen = Vec::new();
    loop {
        let offset = seen.len();
        let reply = asker.ask(&format!(
            r#"{{"id":2,"op":"status","limit":{max},"offset":{offset}}}"#
        ));
        let page = reply["status"]["held"].as_array().unwrap().clone();
        assert!(!page.is_empty() && page.len() <= max, "{}", page.len());
        seen.extend(page.iter().map(|h| h["key"].as_str().unwrap().to_string()));
        if reply["status"]["more"] == false {
            break;
        }
    }
    assert_eq!(seen.len(), all);
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]),
        "pages in order, none twice"
    );
    for limit in ["0", &(max + 1).to_string(), "null"] {
        let reply = asker.ask(&format!(r#"{{"id":3,"op":"status","limit":{limit}}}"#));
        assert_eq!(reply["error"]["code"], "invalid", "{limit}: {reply}");
    }

    // The command line: --limit, the "more" line, and `more` in JSON.
    let dir = tmp.path().join("store");
    let text = std::process::Command::new(BIN)
        .args(["status", dir.to_str().unwrap(), "--limit", "3"])
        .output()
        .unwrap();
    assert!(text.status.success(), "{text:?}");
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&format!("and {} more", all - 3)), "{text}");
    let json = std::process::Command::new(BIN)
        .args(["status", dir.to_str().unwrap(), "--limit", "3", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["more"], true, "{json}");
    assert_eq!(json["held"].as_array().unwrap().len(), 3, "{json}");
    assert_eq!(json["held_total"], all, "{json}");
}

#[test]
fn a_server_started_with_few_open_files_allowed_still_serves_its_full_cap() {
    let _one = one_at_a_time();
    raise_fd_limit();
    let tmp = tempfile::tempdir().unwrap();
    // 256 open files would stop it near 250 connections; it raises its own
    // limit to what its caps need.
    let served = Served::start_with_file_limit(&tmp.path().join("store"), &[], 256);
    let cap = tinystore::server::MAX_CONNECTIONS;
    let mut open: Vec<Raw> = (0..cap)
        .map(|_| Raw::unix(&served.socket(), true))
        .collect();
    let last = open.last_mut().unwrap();
    let ping = last.ask(r#"{"id":1,"op":"ping"}"#);
    assert_eq!(ping["ok"], true, "{ping}");
}
