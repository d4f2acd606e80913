//! `serve --metrics ADDR`: Prometheus text on its own listener, scraped
//! during a real workload (a Unix client and a TCP client holding locks and
//! permits, a lease running out, a waiter in line, more names than the
//! labels allow, a client with a wrong token), and checked against what the
//! workload did.

use crate::support::server::*;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::time::{Duration, Instant};
use tinystore::blocking::Store;
use tinystore::server::MAX_NAMES;
use tinystore::ConnectOptions;

const TOKEN: &str = "metrics-test-token-0123456789";

/// The metrics address the server printed.
pub(super) fn metrics_addr(served: &Served) -> String {
    let log = served.log();
    let at =
        log.find("metrics on http://").expect("a metrics address") + "metrics on http://".len();
    log[at..].split('/').next().unwrap().to_string()
}

/// GET /metrics: each series (name and labels) with its value.
pub(super) fn scrape(addr: &str) -> HashMap<String, f64> {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: tinystore\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("application/openmetrics-text"), "{head}");
    assert!(body.ends_with("# EOF\n"), "{body}");
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap();
            (series.to_string(), value.parse().unwrap())
        })
        .collect()
}

fn value(figures: &HashMap<String, f64>, series: &str) -> f64 {
    *figures
        .get(series)
        .unwrap_or_else(|| panic!("no {series} in {figures:#?}"))
}

/// Scrapes until `done` holds (the server acts on its own time), at most 10 s.
fn scrape_until(addr: &str, done: impl Fn(&HashMap<String, f64>) -> bool) -> HashMap<String, f64> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let figures = scrape(addr);
        if done(&figures) || Instant::now() > deadline {
            return figures;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_metrics_tell_what_a_workload_did() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start_tcp(
        &tmp.path().join("store"),
        TOKEN,
        &["--metrics", "127.0.0.1:0"],
        &[],
    );
    let addr = metrics_addr(&served);
    let unix = Store::connect(&served.address()).unwrap();
    let tcp = format!("tcp://{}", served.tcp_addr().unwrap());
    let tcp = Store::connect_with(&tcp, ConnectOptions::default().token(TOKEN)).unwrap();

    // Three locks held over the Unix socket, two permits over TCP.
    let jobs = unix.locks("jobs");
    let held: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|k| jobs.acquire(*k).unwrap())
        .collect();
    let exports = tcp.semaphore("exports", 2);
    let permits = [
        exports.acquire("eu").unwrap(),
        exports.acquire("eu").unwrap(),
    ];
    // A lease nobody renews runs out.
    let short = tcp
        .locks("short")
        .ttl(Duration::from_millis(50))
        .renew(false);
    let lost = short.acquire("x").unwrap();
    while lost.is_held() {
        std::thread::sleep(Duration::from_millis(5));
    }
    // A waiter in line for jobs/a.
    let waiter = std::thread::spawn(move || {
        let lease = tcp.locks("jobs").acquire("a").unwrap();
        (tcp, lease)
    });

    // A client with a wrong token is refused, and its connection closed.
    let mut wrong = std::net::TcpStream::connect(served.tcp_addr().unwrap()).unwrap();
    wrong
        .write_all(b"{\"op\":\"hello\",\"version\":1,\"token\":\"wrong-token-0123456789\"}\n")
        .unwrap();
    let mut reply = String::new();
    wrong.read_to_string(&mut reply).unwrap();
    assert!(reply.contains("unauthorized"), "{reply}");

    let tcp_connections = "tinystore_connections{transport=\"tcp\"}";
    let figures = scrape_until(&addr, |f| {
        f.get("tinystore_waiters") == Some(&1.0) && f.get(tcp_connections) == Some(&1.0)
    });
    assert_eq!(
        value(&figures, "tinystore_auth_refused_total{transport=\"tcp\"}"),
        1.0
    );
    assert_eq!(value(&figures, "tinystore_waiters"), 1.0);
    let waiting = |f: &HashMap<String, f64>, name: &str| {
        value(
            f,
            &format!("tinystore_waiters_by_name{{kind=\"lock\",name=\"{name}\"}}"),
        )
    };
    assert_eq!(waiting(&figures, "jobs"), 1.0);
    assert_eq!(value(&figures, "tinystore_leases_held"), 5.0);
    let lock = |name: &str| format!("{{kind=\"lock\",name=\"{name}\"}}");
    let lost =
        |name: &str, cause: &str| format!("{{kind=\"lock\",name=\"{name}\",cause=\"{cause}\"}}");
    let exports_label = "{kind=\"semaphore\",name=\"exports\"}";
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_held_by_name{}", lock("jobs"))
        ),
        3.0
    );
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_held_by_name{exports_label}")
        ),
        2.0
    );
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_held_by_name{}", lock("short"))
        ),
        0.0
    );
    assert_eq!(
        value(&figures, &format!("tinystore_grants_total{}", lock("jobs"))),
        3.0
    );
    assert_eq!(
        value(&figures, &format!("tinystore_grants_total{exports_label}")),
        2.0
    );
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_grants_total{}", lock("short"))
        ),
        1.0
    );
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_lost_total{}", lost("short", "expired"))
        ),
        1.0
    );
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_lost_total{}", lost("jobs", "expired"))
        ),
        0.0
    );
    // Times: the three grants of jobs found their keys free; short was
    // held until its TTL ran out.
    let count = |f: &HashMap<String, f64>, metric: &str, name: &str| {
        value(
            f,
            &format!("tinystore_{metric}_seconds_count{}", lock(name)),
        )
    };
    assert_eq!(count(&figures, "wait", "jobs"), 3.0);
    assert_eq!(
        value(
            &figures,
            "tinystore_wait_seconds_bucket{le=\"0.001\",kind=\"lock\",name=\"jobs\"}"
        ),
        3.0
    );
    assert_eq!(count(&figures, "hold", "short"), 1.0);
    assert!(
        value(
            &figures,
            &format!("tinystore_hold_seconds_sum{}", lock("short"))
        ) >= 0.05,
        "short was held for its whole TTL"
    );
    assert_eq!(count(&figures, "hold", "jobs"), 0.0);
    assert_eq!(
        value(&figures, "tinystore_connections{transport=\"unix\"}"),
        1.0
    );
    assert_eq!(
        value(&figures, "tinystore_connections{transport=\"tcp\"}"),
        1.0
    );
    assert_eq!(value(&figures, "tinystore_connections_max"), 1024.0);
    let epoch = unix.status().unwrap().epoch;
    assert_eq!(value(&figures, "tinystore_epoch"), epoch as f64);
    assert_eq!(value(&figures, "tinystore_grace_left_seconds"), 0.0);
    assert_eq!(value(&figures, "tinystore_testing"), 0.0, "not --testing");
    // Every acquire was timed: 3 + 2 + 1 + the waiter's.
    let acquires = value(
        &figures,
        "tinystore_request_duration_seconds_count{op=\"acquire\"}",
    );
    assert_eq!(acquires, 7.0);
    assert_eq!(
        value(
            &figures,
            "tinystore_request_duration_seconds_bucket{le=\"+Inf\",op=\"acquire\"}"
        ),
        7.0
    );
    assert!(value(&figures, "process_resident_memory_bytes") > 0.0);
    assert!(value(&figures, "process_open_fds") > 0.0);
    assert!(value(&figures, "process_start_time_seconds") > 1.0e9);

    // Releasing jobs/a hands it to the waiter.
    drop(held);
    let (_tcp, _lease) = waiter.join().unwrap();
    // Dropped leases are released without waiting for the reply: wait for
    // all three, not only for the first, which served the waiter.
    let figures = scrape_until(&addr, |f| {
        f.get("tinystore_waiters") == Some(&0.0) && f.get("tinystore_leases_held") == Some(&3.0)
    });
    assert_eq!(waiting(&figures, "jobs"), 0.0);
    assert_eq!(
        value(&figures, &format!("tinystore_grants_total{}", lock("jobs"))),
        4.0
    );
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_held_by_name{}", lock("jobs"))
        ),
        1.0
    );
    assert_eq!(value(&figures, "tinystore_leases_held"), 3.0);
    // The waiter waited, and the three released leases were held.
    assert_eq!(count(&figures, "wait", "jobs"), 4.0);
    assert!(
        value(
            &figures,
            &format!("tinystore_wait_seconds_sum{}", lock("jobs"))
        ) > 0.0
    );
    assert_eq!(count(&figures, "hold", "jobs"), 3.0);
    drop(permits);

    // A client whose connection ends while it holds loses its leases:
    // counted as disconnected, not as released.
    let mut gone = Raw::unix(&served.socket(), true);
    for (id, key) in [(1, "x"), (2, "y")] {
        let held = gone.ask(&format!(
            r#"{{"id":{id},"op":"acquire","name":"gone","key":"{key}"}}"#
        ));
        assert_eq!(held["granted"], true, "{held}");
    }
    gone.shutdown();
    let disconnected = format!(
        "tinystore_leases_lost_total{}",
        lost("gone", "disconnected")
    );
    let figures = scrape_until(&addr, |f| f.get(&disconnected) == Some(&2.0));
    assert_eq!(value(&figures, &disconnected), 2.0);
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_leases_lost_total{}", lost("gone", "expired"))
        ),
        0.0
    );

    // More names than the labels allow: the rest count as `other`.
    let names = MAX_NAMES + 5;
    for n in 0..names {
        drop(
            unix.locks(&format!("n{n}"))
                .try_acquire("k")
                .unwrap()
                .unwrap(),
        );
    }
    let figures = scrape(&addr);
    let lock_names = figures
        .keys()
        .filter(|s| s.starts_with("tinystore_grants_total{kind=\"lock\""))
        .count();
    assert_eq!(lock_names, MAX_NAMES + 1, "{MAX_NAMES} names and `other`");
    // jobs, short and gone came first: 3 + names lock names in all.
    let other = (3 + names - MAX_NAMES) as f64;
    assert_eq!(
        value(
            &figures,
            &format!("tinystore_grants_total{}", lock("other"))
        ),
        other
    );
}

#[test]
fn the_metrics_listener_answers_only_get_metrics() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &["--metrics", "127.0.0.1:0"]);
    let addr = metrics_addr(&served);
    for (request, status) in [
        ("GET / HTTP/1.1\r\n\r\n", "404"),
        ("POST /metrics HTTP/1.1\r\n\r\n", "405"),
        ("GET /metrics?x=1 HTTP/1.1\r\n\r\n", "200"),
    ] {
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        assert!(
            text.starts_with(&format!("HTTP/1.1 {status}")),
            "{request:?}: {text}"
        );
    }
}
