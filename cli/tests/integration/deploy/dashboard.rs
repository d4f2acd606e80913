//! deploy/grafana-dashboard.json: every PromQL query of every panel, and its
//! `instance` variable, is run against a real Prometheus (Debian's package)
//! scraping a served store every second under a real workload (two clients
//! contending for a lock, a semaphore, leases running out, clients that
//! disconnect while holding), and each must return a number. Skipped, with
//! a message, where `prometheus` is missing (`make test-deploy` installs
//! it).

use crate::support::server::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tinystore::blocking::Store;

/// What Grafana puts in place of the dashboard's variables.
const VARIABLES: [(&str, &str); 2] = [("$__rate_interval", "10s"), ("$instance", ".+")];

/// The dashboard's queries: (panel title, PromQL as written).
fn queries() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/grafana-dashboard.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut found = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            found.push((
                panel["title"].as_str().unwrap().to_string(),
                target["expr"].as_str().unwrap().to_string(),
            ));
        }
    }
    found
}

/// A Prometheus server on loopback, killed when dropped.
struct Prometheus {
    child: Child,
    addr: String,
    _dir: tempfile::TempDir,
}

impl Prometheus {
    /// Scrapes `target` (HOST:PORT) every second as job `tinystore`.
    fn start(target: &str) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "scrape_configs:\n  - job_name: tinystore\n    scrape_interval: 1s\n    \
                 static_configs:\n      - targets: [\"{target}\"]\n"
            ),
        )
        .unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .arg("--log.level=warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Prometheus {
            child,
            addr,
            _dir: dir,
        }
    }

    /// GET `path` of its HTTP API: the JSON answer, or `None` while it
    /// does not answer.
    fn get(&self, path: &str) -> Option<serde_json::Value> {
        let mut stream = TcpStream::connect(&self.addr).ok()?;
        let request = format!("GET {path} HTTP/1.0\r\nHost: prometheus\r\n\r\n");
        stream.write_all(request.as_bytes()).ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        let (_, body) = answer.split_once("\r\n\r\n")?;
        serde_json::from_str(body).ok()
    }

    /// The finite values an instant query returns now.
    fn values(&self, query: &str) -> Vec<f64> {
        let Some(answer) = self.get(&format!("/api/v1/query?query={}", encode(query))) else {
            return Vec::new();
        };
        assert_eq!(answer["status"], "success", "{query}: {answer}");
        answer["data"]["result"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["value"][1].as_str()?.parse::<f64>().ok())
            .filter(|v| v.is_finite())
            .collect()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` percent-encoded for a URL's query.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A workload until `stop`: two clients take turns on one lock (so one
/// waits), permits come and go, a lease nobody renews runs out, and a
/// client disconnects while it holds.
fn workload(served: &Served, stop: Arc<AtomicBool>) -> Vec<JoinHandle<()>> {
    let mut threads = Vec::new();
    for _ in 0..2 {
        let store = Store::connect(&served.address()).unwrap();
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            let jobs = store.locks("jobs");
            let exports = store.semaphore("exports", 2);
            while !stop.load(Ordering::Relaxed) {
                let lease = jobs.acquire("report").unwrap();
                let permit = exports.acquire("eu").unwrap();
                std::thread::sleep(Duration::from_millis(20));
                permit.release().unwrap();
                lease.release().unwrap();
            }
        }));
    }
    let store = Store::connect(&served.address()).unwrap();
    let socket = served.socket();
    threads.push(std::thread::spawn(move || {
        let short = store
            .locks("short")
            .ttl(Duration::from_millis(50))
            .renew(false);
        while !stop.load(Ordering::Relaxed) {
            let lease = short.acquire("x").unwrap();
            lease.wait_lost(Duration::from_secs(10));
            let mut gone = Raw::unix(&socket, true);
            gone.ask(r#"{"id":1,"op":"acquire","name":"gone","key":"k"}"#);
            gone.shutdown();
            std::thread::sleep(Duration::from_millis(100));
        }
    }));
    threads
}

#[test]
fn every_query_of_the_dashboard_returns_data_from_a_real_prometheus() {
    if Command::new("prometheus")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: prometheus is not installed (apt-get install prometheus)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &["--metrics", "127.0.0.1:0"]);
    let log = served.log();
    let at =
        log.find("metrics on http://").expect("a metrics address") + "metrics on http://".len();
    let target = log[at..].split('/').next().unwrap().to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let threads = workload(&served, stop.clone());
    let prometheus = Prometheus::start(&target);

    // Each query as Grafana sends it, until it has a number (the first
    // scrapes take a few seconds), at most 60 s in all.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut empty = Vec::new();
    let instances = loop {
        let answer = prometheus.get("/api/v1/label/instance/values?match[]=tinystore_epoch");
        let values = answer.map(|a| a["data"].as_array().cloned().unwrap_or_default());
        match values {
            Some(values) if !values.is_empty() => break values,
            _ if Instant::now() > deadline => panic!("prometheus never scraped {target}"),
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    };
    assert_eq!(
        instances,
        [serde_json::json!(target)],
        "the `instance` variable"
    );
    for (title, expr) in queries() {
        let query = VARIABLES
            .iter()
            .fold(expr.clone(), |q, (name, value)| q.replace(name, value));
        let values = loop {
            let values = prometheus.values(&query);
            if !values.is_empty() || Instant::now() > deadline {
                break values;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        if values.is_empty() {
            empty.push(format!("{title}: {expr}"));
        }
    }
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        thread.join().unwrap();
    }
    assert!(
        empty.is_empty(),
        "queries with no data:\n{}",
        empty.join("\n")
    );
}
