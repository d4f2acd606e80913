//! What the etcd tests share: the cluster that `make test-etcd` started
//! (its members in TINYSTORE_ETCD, its directory in TINYSTORE_ETCD_DIR), a
//! fresh prefix per test, and a plain etcd client to look behind the store.
#![allow(dead_code)]

pub mod lost_reply;
pub mod netns;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The members, `HOST:PORT,HOST:PORT,...`.
pub fn members() -> String {
    std::env::var("TINYSTORE_ETCD").expect(
        "TINYSTORE_ETCD names the etcd members (HOST:PORT,...); `make test-etcd` starts a cluster and sets it",
    )
}

/// A prefix no other test uses.
pub fn prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("tests/{test}-{}-{nanos}", std::process::id())
}

/// The address of a fresh store for `test`.
pub fn address(test: &str) -> String {
    format!("etcd://{}/{}", members(), prefix(test))
}

/// The prefix part of an address made by `address`.
pub fn prefix_of(address: &str) -> String {
    address
        .split_once("://")
        .unwrap()
        .1
        .split_once('/')
        .unwrap()
        .1
        .to_string()
}

/// A plain etcd client on every member.
pub async fn raw() -> etcd_client::Client {
    let endpoints: Vec<String> = members()
        .split(',')
        .map(|m| format!("http://{m}"))
        .collect();
    etcd_client::Client::connect(endpoints, None).await.unwrap()
}

/// How many keys live under `/PREFIX/` besides the epoch.
pub async fn entries(address: &str) -> i64 {
    let root = format!("/{}/", prefix_of(address));
    let mut kv = raw().await.kv_client();
    let options = etcd_client::GetOptions::new()
        .with_prefix()
        .with_keys_only();
    let got = kv.get(root.clone(), Some(options)).await.unwrap();
    got.kvs()
        .iter()
        .filter(|kv| kv.key() != format!("{root}epoch").as_bytes())
        .count() as i64
}

/// Polls `entries` until it is `want`; returns what it saw last.
pub async fn entries_become(address: &str, want: i64) -> i64 {
    let mut seen = entries(address).await;
    for _ in 0..100 {
        if seen == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        seen = entries(address).await;
    }
    seen
}

/// The next change `observer` sees, within 20 s.
pub async fn next_change(observer: &mut tinystore::Observer) -> Option<tinystore::Leader> {
    use futures_util::StreamExt;
    tokio::time::timeout(Duration::from_secs(20), observer.next())
        .await
        .expect("a change was pushed")
        .expect("the observer goes on")
        .expect("a change, not an error")
}

/// The cluster's directory, as etcd_cluster.sh keeps it.
pub fn cluster_dir() -> PathBuf {
    PathBuf::from(std::env::var("TINYSTORE_ETCD_DIR").expect(
        "TINYSTORE_ETCD_DIR is the directory of the test cluster; `make test-etcd` sets it",
    ))
}

/// Runs `etcd_cluster.sh COMMAND DIR MEMBER`: `kill` or `restart`.
pub fn cluster(command: &str, member: usize) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/etcd_cluster.sh");
    let status = Command::new("bash")
        .arg(script)
        .arg(command)
        .arg(cluster_dir())
        .arg(member.to_string())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "etcd_cluster.sh {command} {member} failed"
    );
}

/// The member (1..3) that leads the cluster now.
pub async fn leader() -> usize {
    for _ in 0..100 {
        for (i, member) in members().split(',').enumerate() {
            let Ok(mut client) =
                etcd_client::Client::connect([format!("http://{member}")], None).await
            else {
                continue;
            };
            if let Ok(status) = client.status().await {
                let me = status.header().map(|h| h.member_id());
                if me == Some(status.leader()) {
                    return i + 1;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no member of the test cluster says it leads");
}

/// A member killed by `kill`; started again when this is dropped, also when
/// the test fails, so that the next test has the whole cluster.
pub struct Killed(pub usize);

/// Kills member `member` (SIGKILL) until the returned value is dropped.
pub fn kill(member: usize) -> Killed {
    cluster("kill", member);
    Killed(member)
}

impl Drop for Killed {
    fn drop(&mut self) {
        cluster("restart", self.0);
    }
}

/// A TCP proxy in front of every member, that the test can cut: once cut,
/// it forwards nothing more, in either direction, on the connections it
/// has or on new ones (which it accepts and leaves silent), as a network
/// that drops every packet would; healed, it forwards new connections. A client given `members()` of the proxy
/// reaches the cluster only through it.
pub struct Proxy {
    /// `HOST:PORT,...` of the proxy, one per member, in the members' order.
    pub members: String,
    /// Whether each member's proxy is cut.
    cut: Vec<tokio::sync::watch::Sender<bool>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Proxy {
    /// Starts a proxy in front of each member of the test cluster.
    pub async fn start() -> Proxy {
        let mut cuts = Vec::new();
        let mut listening = Vec::new();
        let mut tasks = Vec::new();
        for member in members().split(',') {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            listening.push(listener.local_addr().unwrap().to_string());
            let cut = tokio::sync::watch::channel(false).0;
            cuts.push(cut.clone());
            let member = member.to_string();
            tasks.push(tokio::spawn(async move {
                let mut held = Vec::new();
                while let Ok((inbound, _)) = listener.accept().await {
                    if *cut.borrow() {
                        // Silent: neither forwarded nor closed.
                        held.push(inbound);
                        continue;
                    }
                    let (member, cut) = (member.clone(), cut.subscribe());
                    tokio::spawn(forward(inbound, member, cut));
                }
            }));
        }
        Proxy {
            members: listening.join(","),
            cut: cuts,
            tasks,
        }
    }

    /// The address of a store with `prefix` reached through the proxy.
    pub fn address(&self, prefix: &str) -> String {
        format!("etcd://{}/{prefix}", self.members)
    }

    /// Stops forwarding, on every connection to every member.
    pub fn cut(&self) {
        for cut in &self.cut {
            cut.send_replace(true);
        }
    }

    /// Stops forwarding to member `n` (0-based, in the members' order).
    pub fn cut_member(&self, n: usize) {
        self.cut[n].send_replace(true);
    }

    /// Forwards new connections again; those open during the cut stay
    /// silent, for the client to give up on.
    pub fn heal(&self) {
        for cut in &self.cut {
            cut.send_replace(false);
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Copies bytes both ways between `inbound` and `member` until `cut`; then
/// keeps both sockets open and silent.
async fn forward(
    mut inbound: tokio::net::TcpStream,
    member: String,
    mut cut: tokio::sync::watch::Receiver<bool>,
) {
    let Ok(mut outbound) = tokio::net::TcpStream::connect(&member).await else {
        return;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
        _ = async { drop(cut.wait_for(|cut| *cut).await) } => {
            // Hold both ends open without a byte more, as a partition does.
            std::future::pending::<()>().await;
        }
    }
}
