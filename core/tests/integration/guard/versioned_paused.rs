//! A writer process stopped (SIGSTOP) between the guard's read and its
//! put, on Google Cloud Storage (fake-gcs-server) and Azure Blob Storage
//! (Azurite): it holds a lease of a store served here and writes under it;
//! stopped once its read is answered, it renews no more, so that this
//! process takes the lock with a larger fence and writes; continued
//! (SIGCONT), its put on the version it read fails its condition, the guard
//! reads again and refuses it as `stale`, the newer object kept whole, and
//! the refusal is told to the store.
//!
//! The writer is this test binary run again with `child`. It stops itself
//! at the right place with no timing: its client goes through a proxy of
//! its own (versioned.rs's racing proxy), which, when the guard's put
//! arrives, after the read was answered, says `read done` and forwards
//! nothing until told `go` on stdin. The guard's step-wise machine
//! (`VersionedCheck`) could be driven by hand instead, but only by test
//! code that makes the read and the put itself; this way the calls are
//! those of `guard::gcs` and `guard::azure`.
#![cfg(all(feature = "guard-gcs", feature = "guard-azure"))]

use super::versioned::{azure_at, gcs_at, racing_proxy, stores, Store};
use crate::support::served::served;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;
use tinystore::{Code, RefusedStatus};

/// The child's lease's TTL: how long this process waits, once the child
/// is stopped, for the lock.
const TTL: Duration = Duration::from_secs(1);

/// The writer, this binary again, on `store` (`gcs` or `azure`) at `url`,
/// writing `name` under a lease of the store at `address`.
fn spawn(store: &str, url: &str, address: &str, name: &str) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            test_name!("child"),
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TINYSTORE_PAUSED_STORE", store)
        .env("TINYSTORE_PAUSED_URL", url)
        .env("TINYSTORE_PAUSED_ADDRESS", address)
        .env("TINYSTORE_PAUSED_NAME", name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

/// What follows `word ` in the next line of the child's that has it.
fn said(out: &mut BufReader<ChildStdout>, word: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child ended before saying {word}"
        );
        // The harness's "test child ... " has no newline: look anywhere.
        if let Some((_, rest)) = line.trim_end().split_once(&format!("{word} ")) {
            return rest.to_string();
        }
    }
}

fn signal(child: &Child, signal: libc::c_int) {
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

/// Polls the store's status until it counts `want` refusals in the group
/// `summaries` (a served store counts a message sent after the refusal).
async fn refusals_counted(store: &tinystore::Store, want: u64) {
    let want = vec![RefusedStatus {
        name: "summaries".into(),
        kind: "lock".into(),
        refused: want,
    }];
    for _ in 0..500 {
        if store.status().await.unwrap().late_writes_refused == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(store.status().await.unwrap().late_writes_refused, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_stopped_between_its_read_and_its_put_is_refused_when_continued() {
    let (_dir, _server, address) = served().await;
    let locks = tinystore::Store::connect(&address).await.unwrap();
    let mut refused = 0;
    for (store, url) in stores() {
        let kind = match store {
            Store::Gcs(_) => "gcs",
            Store::Azure(_) => "azure",
        };
        for (test, first) in [("paused-new", None), ("paused-old", Some(1))] {
            let name = format!("rs-{test}-{}", std::process::id());
            if let Some(fence) = first {
                store.guarded(&name, "first", fence, &[]).await.unwrap();
            }
            let (mut child, mut out) = spawn(kind, &url, &address, &name);
            let late: u128 = said(&mut out, "fence").parse().unwrap();
            assert_eq!(said(&mut out, "read"), "done", "{kind} {test}");
            signal(&child, libc::SIGSTOP);

            // Stopped, the child renews no more: its lease runs out and this
            // process takes the lock with a larger fence, and writes.
            let lease = locks
                .locks("summaries")
                .ttl(TTL)
                .wait(Duration::from_secs(60))
                .acquire(name.as_str())
                .await
                .unwrap();
            let newer = lease.fence().get();
            assert!(newer > late, "{kind} {test}: {newer} <= {late}");
            store
                .guarded_under(&name, "by the newer holder", &lease, &[])
                .await
                .unwrap();

            writeln!(child.stdin.as_mut().unwrap(), "go").unwrap();
            signal(&child, libc::SIGCONT);
            let verdict = said(&mut out, "verdict");
            assert_eq!(verdict, format!("stale {newer}"), "{kind} {test}");
            refused += 1;
            refusals_counted(&locks, refused).await;
            drop(child.stdin.take());
            assert!(child.wait().unwrap().success(), "{kind} {test}");
            let read = store.read(&name).await.unwrap();
            let kept = (
                "by the newer holder".to_string(),
                Some(lease.fence().text()),
            );
            assert_eq!(read, kept, "{kind} {test}");
            lease.release().await.unwrap();
        }
    }
}

/// The writer; the test above starts it. Run alone it has nothing to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a child process's role, started by the test above"]
async fn child() {
    let var = |name: &str| std::env::var(name).unwrap();
    let (url, name) = (var("TINYSTORE_PAUSED_URL"), var("TINYSTORE_PAUSED_NAME"));
    let locks = tinystore::Store::connect(&var("TINYSTORE_PAUSED_ADDRESS"))
        .await
        .unwrap();
    let lease = locks
        .locks("summaries")
        .ttl(TTL)
        .acquire(name.as_str())
        .await
        .unwrap();
    println!("fence {}", lease.fence().get());

    // The guard's put reaches the proxy only after its read was answered:
    // say so, then forward nothing until told (stopped meanwhile).
    let paused = async {
        tokio::task::spawn_blocking(|| {
            println!("read done");
            std::io::stdout().flush().unwrap();
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
            assert_eq!(line.trim(), "go");
        })
        .await
        .unwrap();
        true
    };
    let (scheme_host, rest) = url.split_at(url.find("://").unwrap() + 3);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (trigger, at): (&'static [u8], fn(&str) -> Store) =
        match var("TINYSTORE_PAUSED_STORE").as_str() {
            "gcs" => (b"POST /upload/", gcs_at),
            "azure" => (b"PUT /", azure_at),
            other => panic!("unknown store {other}"),
        };
    let proxy = racing_proxy(host.to_string(), trigger, paused).await;
    let through = at(format!("{scheme_host}{proxy}/{path}").trim_end_matches('/'));

    let err = through
        .guarded_under(&name, "late", &lease, &[])
        .await
        .expect_err("the late put is refused");
    assert_eq!(err.code(), Code::Stale, "{err}");
    let stale = err.stale_detail().unwrap();
    assert_eq!(stale.fence, lease.fence().get());
    assert!(stale.largest > lease.fence().get());
    println!("verdict stale {}", stale.largest);
    std::io::stdout().flush().unwrap();
    // Keep the connection to the store, which the refusal was told on,
    // until the test has seen it counted and closes stdin.
    tokio::task::spawn_blocking(|| std::io::stdin().lines().count())
        .await
        .unwrap();
}
