//! The server's logs: a line for each connection opened and closed, each
//! lease lost, each refused authentication (the token never in them), in
//! JSON with `--log-format json`, filtered by RUST_LOG.

use crate::support::server::*;
use std::time::Duration;
use tinystore::blocking::Store;

const TOKEN: &str = "logs-test-token-0123456789";
const WRONG: &str = "a-wrong-token-0123456789";

/// The server's log lines, each parsed as JSON.
fn json_lines(served: &Served) -> Vec<serde_json::Value> {
    served
        .log()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn messages(lines: &[serde_json::Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            l["fields"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Says hello over TCP with `token`; the server's reply.
fn hello(hostport: &str, token: &str) -> String {
    use std::io::{BufRead, BufReader, Write};
    let mut stream = std::net::TcpStream::connect(hostport).unwrap();
    let line = format!("{{\"op\":\"hello\",\"version\":1,\"token\":\"{token}\"}}\n");
    stream.write_all(line.as_bytes()).unwrap();
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).unwrap();
    reply
}

/// The server's lines once `done` holds of them (it writes them as things
/// happen), or after 5 s.
fn lines_until(
    served: &Served,
    done: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    for _ in 0..500 {
        let lines = json_lines(served);
        if done(&lines) {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    json_lines(served)
}

fn start(dir: &std::path::Path, env: &[(&str, &str)]) -> Served {
    Served::start_tcp(dir, TOKEN, &["--log-format", "json"], env)
}

#[test]
fn json_logs_tell_connections_refusals_and_lost_leases_never_the_token() {
    let tmp = tempfile::tempdir().unwrap();
    let served = start(&tmp.path().join("store"), &[("RUST_LOG", "info")]);
    let hostport = served.tcp_addr().unwrap();
    assert!(hello(&hostport, WRONG).contains("unauthorized"));
    assert!(hello(&hostport, TOKEN).contains("\"ok\":true"));
    let store = Store::connect(&served.address()).unwrap();
    let short = store
        .locks("reports")
        .ttl(Duration::from_millis(30))
        .renew(false);
    let lease = short.acquire("daily").unwrap();
    while lease.is_held() {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(lease);
    store.close().unwrap();
    // The server writes its lines as things happen: wait for the last.
    let closed = |m: &String| m == "connection closed";
    let lines = lines_until(&served, |l| {
        messages(l).iter().filter(|m| closed(m)).count() >= 4
    });
    let refused: Vec<_> = lines
        .iter()
        .filter(|l| l["fields"]["message"] == "refused authentication")
        .collect();
    assert_eq!(refused.len(), 1, "{lines:#?}");
    assert_eq!(refused[0]["target"], "tinystore::auth");
    assert_eq!(refused[0]["level"], "WARN");
    assert_eq!(refused[0]["fields"]["why"], "the token is missing or wrong");
    assert_eq!(refused[0]["span"]["transport"], "tcp");
    assert!(refused[0]["span"]["peer"]
        .as_str()
        .unwrap()
        .starts_with("127.0.0.1:"));
    // Four connections: the test's readiness probe on the Unix socket, the
    // wrong token, the right one, and the store.
    let all = messages(&lines);
    let count = |m: &str| all.iter().filter(|x| *x == m).count();
    assert_eq!(count("connection opened"), 4, "{all:?}");
    assert_eq!(count("connection closed"), 4, "{all:?}");
    let lost: Vec<_> = lines
        .iter()
        .filter(|l| l["target"] == "tinystore::lease")
        .collect();
    assert_eq!(lost.len(), 1, "{lines:#?}");
    assert_eq!(lost[0]["fields"]["name"], "reports");
    assert_eq!(lost[0]["fields"]["key"], "daily");
    let log = served.log();
    assert!(
        !log.contains(TOKEN) && !log.contains(WRONG),
        "a token was logged: {log}"
    );
}

#[test]
fn rust_log_filters_the_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let served = start(&tmp.path().join("store"), &[("RUST_LOG", "warn")]);
    let hostport = served.tcp_addr().unwrap();
    assert!(hello(&hostport, WRONG).contains("unauthorized"));
    let others = |lines: &[serde_json::Value]| -> Vec<serde_json::Value> {
        let others = lines.iter().filter(|l| l["target"] != "tinystore::command");
        others.cloned().collect()
    };
    let lines = others(&lines_until(&served, |l| !others(l).is_empty()));
    // The start line is always written; of the rest, only the warning.
    assert!(served.log().contains("serving"));
    assert_eq!(messages(&lines), ["refused authentication"], "{lines:#?}");
}
