//! `serve --page`: the live page beside the metrics, loaded in headless
//! Chromium (Debian's package) against a served store with a thousand keys
//! held and a workload going on (locks taken and released, a waiter in
//! line, a lease running out): a new holder shows within two of the page's
//! refreshes, and a screenshot is kept in target/test-artifacts/. Its
//! data is refused without the server's token; bad requests get 404 and
//! 405. Skipped, with a message, where chromium is not installed (`make
//! test-page` installs it).

use super::metrics::metrics_addr;
use crate::support::chromium::{self, Chromium};
use crate::support::server::*;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tinystore::blocking::Store;

const TOKEN: &str = "page-test-token-0123456789";

/// Sends `request` raw; gives the reply's status line and body.
fn http(addr: &str, request: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.to_string(), body.to_string())
}

fn get(addr: &str, path: &str, token: Option<&str>) -> (String, String) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    http(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: t\r\n{auth}\r\n"),
    )
}

/// Where the test keeps its screenshots: target/test-artifacts/.
fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("test-artifacts")
}

#[test]
fn the_page_needs_its_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(BIN)
        .args(["serve", tmp.path().to_str().unwrap(), "--page"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--metrics") && err.contains("--token-file"),
        "{err}"
    );
}

#[test]
fn the_page_refuses_bad_requests_and_its_data_without_the_token() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start_tcp(
        &tmp.path().join("store"),
        TOKEN,
        &["--metrics", "127.0.0.1:0", "--page"],
        &[],
    );
    assert!(
        served.log().contains("the live page on http://"),
        "{}",
        served.log()
    );
    let addr = metrics_addr(&served);
    let store = Store::connect(&served.address()).unwrap();
    let _held = store.locks("secret-group").acquire("k").unwrap();

    let (head, page) = get(&addr, "/", None);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("text/html"), "{head}");
    assert!(
        head.contains("Content-Security-Policy: default-src 'none'"),
        "{head}"
    );
    assert!(
        !page.contains("secret-group"),
        "the page itself carries no data"
    );
    assert!(
        !page.contains("src=\"http") && !page.contains("//cdn"),
        "self-contained"
    );

    for token in [None, Some("wrong-token-0123456789"), Some("")] {
        let (head, body) = get(&addr, "/page.json", token);
        assert!(head.starts_with("HTTP/1.1 401"), "{token:?}: {head}");
        assert!(head.contains("WWW-Authenticate: Bearer"), "{head}");
        assert!(!body.contains("secret-group"), "{body}");
    }
    let (head, body) = http(
        &addr,
        &format!("GET /page.json HTTP/1.1\r\nAuthorization: Basic {TOKEN}\r\n\r\n"),
    );
    assert!(head.starts_with("HTTP/1.1 401"), "{head}: {body}");
    let (head, body) = get(&addr, "/page.json?x=1", Some(TOKEN));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let snap: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(snap["status"]["held"][0]["name"], "secret-group");
    assert!(snap["status"]["held"][0]["held_ms"].is_u64(), "{snap}");
    assert_eq!(snap["groups"][0]["held"], 1);
    assert_eq!(snap["grants"][0]["key"], "k");
    assert_eq!(snap["poll_ms"], tinystore::server::POLL_MS);

    for (request, status) in [
        ("POST / HTTP/1.1\r\n\r\n", "405"),
        ("DELETE /page.json HTTP/1.1\r\n\r\n", "405"),
        ("POST /metrics HTTP/1.1\r\n\r\n", "405"),
        ("GET /nothing HTTP/1.1\r\n\r\n", "404"),
        ("GET /page.json/ HTTP/1.1\r\n\r\n", "404"),
        ("\r\n\r\n", "400"),
        ("GET /metrics HTTP/1.1\r\n\r\n", "200"),
    ] {
        let (head, _) = http(&addr, request);
        assert!(
            head.starts_with(&format!("HTTP/1.1 {status}")),
            "{request:?}: {head}"
        );
    }
    let long = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(10_000));
    let (head, _) = http(&addr, &long);
    assert!(head.starts_with("HTTP/1.1 431"), "{head}");
    // Still serving after all of it.
    let (head, _) = get(&addr, "/page.json", Some(TOKEN));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[test]
fn the_page_shows_a_new_holder_live_in_chromium() {
    let Some(browser) = chromium::installed() else {
        assert!(
            std::env::var_os("TINYSTORE_REQUIRE_CHROMIUM").is_none(),
            "chromium is not installed (make deps brings it)"
        );
        eprintln!("skipped: chromium is not installed (apt-get install chromium; make test-page)");
        return;
    };
    raise_fd_limit();
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start_tcp(
        &tmp.path().join("store"),
        TOKEN,
        &["--metrics", "127.0.0.1:0", "--page"],
        &[],
    );
    let addr = metrics_addr(&served);
    let address = served.address();

    // A thousand keys held.
    let store = Store::connect(&address).unwrap();
    let jobs = store.locks("jobs");
    let held: Vec<_> = (0..1000)
        .map(|i| jobs.acquire(format!("key-{i:04}")).unwrap())
        .collect();
    // A lease nobody renews runs out: a loss.
    let short = store
        .locks("short")
        .ttl(Duration::from_millis(50))
        .renew(false);
    let lost = short.acquire("x").unwrap();
    while lost.is_held() {
        std::thread::sleep(Duration::from_millis(5));
    }
    // A waiter in line for a held key, until the end.
    let waiter_store = Store::connect(&address).unwrap();
    let waiter = std::thread::spawn(move || {
        let lease = waiter_store
            .locks("jobs")
            .wait(Duration::from_secs(120))
            .acquire("key-0007");
        drop(lease);
    });
    // Churn: locks taken and released all along, at most 20 held at once.
    let stop = Arc::new(AtomicBool::new(false));
    let churn = {
        let (stop, address) = (stop.clone(), address.clone());
        std::thread::spawn(move || {
            let store = Store::connect(&address).unwrap();
            let group = store.locks("churn");
            let mut leases = std::collections::VecDeque::new();
            let mut turns = 0u64;
            while !stop.load(Ordering::Relaxed) && turns < 100_000 {
                if let Some(lease) = group.try_acquire(format!("c{}", turns % 40)).unwrap() {
                    leases.push_back(lease);
                }
                if leases.len() > 20 {
                    leases.pop_front();
                }
                turns += 1;
                std::thread::sleep(Duration::from_millis(3));
            }
            turns
        })
    };

    let mut page = Chromium::start(browser, 1400, 1100);
    page.navigate(&format!("http://{addr}/#token={TOKEN}"));
    let refreshes = |page: &mut Chromium| {
        page.eval("Number(document.body?.dataset?.refreshes || 0)")
            .as_u64()
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while refreshes(&mut page) < 2 {
        assert!(Instant::now() < deadline, "the page never refreshed");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The token left the address bar; the page shows the thousand keys,
    // a table at a time.
    let href = page.eval("location.href");
    assert!(!href.as_str().unwrap().contains(TOKEN), "{href}");
    let totals = page.eval("document.getElementById('totals').textContent");
    let held_now: u64 = totals
        .as_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(held_now >= 1001, "{totals}");
    let rows = page.eval("document.querySelectorAll('#holders tbody tr').length");
    assert_eq!(rows, 200, "a table shows at most 200 rows");
    let more = page.eval("document.getElementById('holdersmore').textContent");
    assert!(
        more.as_str().unwrap().contains("narrow the filter"),
        "{more}"
    );
    let jobs_row = page.eval(
        "[...document.querySelectorAll('#groups tbody tr')].map(r => r.textContent).find(t => t.includes('jobs'))",
    );
    assert!(jobs_row.as_str().unwrap().contains("1000"), "{jobs_row}");
    assert_eq!(
        page.eval("document.querySelector('#queues tbody tr')?.dataset.key"),
        "key-0007"
    );
    assert_eq!(
        page.eval("document.querySelector('#losses tbody tr')?.dataset.name"),
        "short"
    );

    // A new holder: seen by the page within two refreshes of its grant.
    let poll_ms = page.eval("poll");
    assert_eq!(poll_ms, tinystore::server::POLL_MS);
    let newcomer = store.locks("newcomer");
    let taken = Instant::now();
    let lease = newcomer.acquire("k-live").unwrap();
    let after_grant = refreshes(&mut page);
    // The refreshes done and whether the holder shows, read at once.
    let seen = "[Number(document.body.dataset.refreshes), [...document.querySelectorAll('#holders tbody tr')].some(r => r.dataset.name === 'newcomer' && r.dataset.key === 'k-live')]";
    let filter = |page: &mut Chromium, text: &str| {
        page.eval(&format!(
            "(() => {{ const f = document.getElementById('filter'); f.value = {text:?}; f.dispatchEvent(new Event('input')); return true; }})()"
        ));
    };
    filter(&mut page, "newcomer");
    loop {
        let state = page.eval(seen);
        if state[1] == true {
            break;
        }
        // The second refresh after the grant began after it.
        assert!(
            state[0].as_u64().unwrap() < after_grant + 2,
            "two refreshes after the grant and the page does not show it"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!(
        "the page showed the new holder {} ms after its acquire began",
        taken.elapsed().as_millis()
    );
    page.screenshot(&artifacts().join("live-page-new-holder.png"));
    filter(&mut page, "");
    let shown = refreshes(&mut page);
    while refreshes(&mut page) < shown + 1 {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The churn's grants scroll by in the latest grants.
    let grants = page.eval("document.querySelectorAll('#grants tbody tr').length");
    assert!(grants.as_u64().unwrap() > 0, "{grants}");
    let shot = artifacts().join("live-page.png");
    page.screenshot(&shot);
    eprintln!("screenshots in {}", artifacts().display());

    // Released: gone from the page too.
    lease.release().unwrap();
    filter(&mut page, "newcomer");
    let after_release = refreshes(&mut page);
    loop {
        let state = page.eval(seen);
        if state[1] == false {
            break;
        }
        assert!(
            state[0].as_u64().unwrap() < after_release + 2,
            "the released holder stays"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    stop.store(true, Ordering::Relaxed);
    let turns = churn.join().unwrap();
    assert!(turns > 10, "the churn ran: {turns} turns");
    drop(held);
    waiter.join().unwrap();
}
