//! Surges against a real `tinystore serve`: a fleet of TCP clients
//! reconnecting at once, and rounds of connections full of waiters that
//! close, after which the server's memory must go back down.

use crate::support::server::*;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

/// The tests here load the machine; they run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

const TOKEN: &str = "a-token-of-sixteen-bytes-or-more";

/// Lets this process (and the servers it starts) open `files` files: the
/// soft limit, and the hard one if it is lower (as root, as on CI).
fn allow_open_files(files: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit on this process, with a valid struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        let wanted = files as libc::rlim_t;
        if limit.rlim_max < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: wanted,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return;
            }
        }
        limit.rlim_cur = limit.rlim_cur.max(wanted.min(limit.rlim_max));
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

/// One fleet client: connects, says hello with the token, pings, and
/// closes; what went wrong, if anything.
fn fleet_client(addr: &str) -> Result<(), String> {
    let stream = std::net::TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut write = stream.try_clone().unwrap();
    let mut read = std::io::BufReader::new(stream);
    let mut ask = |line: &str| -> Result<serde_json::Value, String> {
        use std::io::{BufRead, Write};
        write
            .write_all(format!("{line}\n").as_bytes())
            .map_err(|e| format!("write: {e}"))?;
        let mut got = String::new();
        match read.read_line(&mut got) {
            Ok(0) => Err("closed with no answer".into()),
            Ok(_) => Ok(serde_json::from_str(&got).unwrap()),
            Err(e) => Err(format!("read: {e}")),
        }
    };
    let hello = ask(&format!(
        r#"{{"op":"hello","version":1,"token":"{TOKEN}"}}"#
    ))?;
    if hello["ok"] != true {
        return Err(format!("hello: {hello}"));
    }
    let ping = ask(r#"{"id":1,"op":"ping"}"#)?;
    if ping["ok"] != true {
        return Err(format!("ping: {ping}"));
    }
    Ok(())
}

#[test]
fn a_fleet_of_1100_token_clients_connecting_at_once_is_served_none_refused() {
    let _one = one_at_a_time();
    const FLEET: usize = 1_100;
    allow_open_files(8192);
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start_tcp(&tmp.path().join("store"), TOKEN, &[], &[]);
    let addr = served.tcp_addr().unwrap();
    let start = Arc::new(Barrier::new(FLEET + 1));
    let clients: Vec<_> = (0..FLEET)
        .map(|_| {
            let (addr, start) = (addr.clone(), start.clone());
            std::thread::Builder::new()
                .stack_size(128 * 1024)
                .spawn(move || {
                    start.wait();
                    fleet_client(&addr)
                })
                .unwrap()
        })
        .collect();
    start.wait();
    let began = Instant::now();
    let outcomes: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let took = began.elapsed();
    let failed: Vec<_> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    eprintln!("{FLEET} clients served in {took:?}");
    assert!(
        failed.is_empty(),
        "{} of {FLEET} clients were not served, e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
    assert!(took < Duration::from_secs(20), "the fleet took {took:?}");
    let log = served.log();
    assert!(
        !log.contains("refused authentication"),
        "the server refused someone: {}",
        log.lines()
            .find(|l| l.contains("refused authentication"))
            .unwrap_or_default()
    );
}

/// The server's resident memory in MiB, from /proc/PID/status.
fn rss_mib(pid: i32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024.0
}

/// The callers waiting on every key, from `status`.
fn all_waiting(raw: &mut Raw) -> u64 {
    let status = raw.ask(r#"{"id":1,"op":"status"}"#);
    let waiting = status["status"]["waiting"].as_array().unwrap().clone();
    waiting.iter().map(|w| w["waiters"].as_u64().unwrap()).sum()
}

/// Waits until `status` says `n` callers wait, for a minute at most.
fn until_waiting(raw: &mut Raw, n: u64) {
    let by = Instant::now() + Duration::from_secs(60);
    while all_waiting(raw) != n {
        assert!(Instant::now() < by, "never {n} waiting");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[cfg_attr(
    not(all(target_os = "linux", target_env = "gnu")),
    ignore = "the server gives freed memory back through glibc"
)]
fn rounds_of_connections_full_of_waiters_closing_leave_the_memory_flat() {
    let _one = one_at_a_time();
    const ROUNDS: usize = 10;
    const CONNECTIONS: usize = 24;
    const KEYS: usize = 8;
    let per_connection = tinystore::server::MAX_WAITERS_PER_CONNECTION;
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut holder = Raw::unix(&served.socket(), true);
    for k in 0..KEYS {
        let got = holder.ask(&format!(
            r#"{{"id":{k},"op":"acquire","name":"rounds","key":"k{k}","ttl_ms":3600000}}"#
        ));
        assert_eq!(got["granted"], true, "{got}");
    }
    let requests: Vec<u8> = (0..per_connection)
        .flat_map(|i| {
            format!(
                "{{\"id\":{i},\"op\":\"acquire\",\"name\":\"rounds\",\"key\":\"k{}\"}}\n",
                i % KEYS
            )
            .into_bytes()
        })
        .collect();
    let started = rss_mib(served.pid());
    let mut after = Vec::new();
    for round in 1..=ROUNDS {
        let mut crowd: Vec<Raw> = (0..CONNECTIONS)
            .map(|_| Raw::unix(&served.socket(), true))
            .collect();
        for conn in &mut crowd {
            conn.send_raw(&requests);
        }
        until_waiting(&mut holder, (CONNECTIONS * per_connection) as u64);
        let peak = rss_mib(served.pid());
        for conn in &crowd {
            conn.shutdown();
        }
        drop(crowd);
        until_waiting(&mut holder, 0);
        // What the waits took goes back to the system once the crowd has
        // closed: within seconds, down to less than half the peak.
        let by = Instant::now() + Duration::from_secs(10);
        let mut now = rss_mib(served.pid());
        while now > peak / 2.0 && Instant::now() < by {
            std::thread::sleep(Duration::from_millis(50));
            now = rss_mib(served.pid());
        }
        // Past a trim under way: the least RSS over the next second. A
        // leak stays in every reading; memory still on its way back to
        // the system (8 MiB for a moment, seen on a loaded machine) does
        // not stay in the least.
        let settled_by = Instant::now() + Duration::from_secs(1);
        while Instant::now() < settled_by {
            std::thread::sleep(Duration::from_millis(50));
            now = now.min(rss_mib(served.pid()));
        }
        eprintln!("round {round}: RSS {peak:.1} MiB with the crowd waiting, {now:.1} MiB after");
        assert!(
            now < peak / 2.0,
            "round {round}: RSS stayed at {now:.1} MiB after the crowd closed (peak {peak:.1}, \
             {started:.1} at the start)"
        );
        after.push(now);
    }
    // A leak grows the memory left after every round; the allocator may
    // also step up once (a new arena: about 3 MiB, at any round, flat
    // after). So the rises from the second round on, all but the largest,
    // must add up to little: a leak of 0.3 MiB a round would pass 2 MiB.
    let rises: Vec<f64> = after[1..]
        .windows(2)
        .map(|w| (w[1] - w[0]).max(0.0))
        .collect();
    let largest = rises.iter().cloned().fold(0.0, f64::max);
    let steady = rises.iter().sum::<f64>() - largest;
    assert!(
        steady <= 2.0,
        "RSS rose {steady:.1} MiB over rounds 2 to {ROUNDS}, besides one step of {largest:.1}: {after:?}"
    );
    // The holder still holds every key.
    let status = holder.ask(r#"{"id":2,"op":"status"}"#);
    assert_eq!(status["status"]["held_total"], KEYS, "{status}");
}
