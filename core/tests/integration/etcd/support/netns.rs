//! The three-member cluster whose members live in network namespaces of
//! their own (tests/etcd_netns.sh), started by `make test-etcd` beside the
//! loopback one: its directory in TINYSTORE_ETCD_NETNS_DIR. A test cuts a
//! member off from the others with `isolate`, and the cut heals when the
//! returned guard is dropped, also when the test fails.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The namespaced cluster `make test-etcd` started.
pub struct Cluster {
    dir: PathBuf,
    /// The members' client addresses, `HOST:PORT`, member 1 first.
    pub members: Vec<String>,
}

impl Cluster {
    /// The cluster named by TINYSTORE_ETCD_NETNS_DIR.
    pub fn from_env() -> Cluster {
        let dir = PathBuf::from(std::env::var("TINYSTORE_ETCD_NETNS_DIR").expect(
            "TINYSTORE_ETCD_NETNS_DIR is the directory of the namespaced test cluster; `make test-etcd` starts it",
        ));
        let endpoints = std::fs::read_to_string(dir.join("endpoints")).unwrap();
        let members = endpoints.trim().split(',').map(String::from).collect();
        Cluster { dir, members }
    }

    /// The address of a store with `prefix` on `members` (1..3), in that
    /// order: a client calls the first until it fails, then the next.
    pub fn address(&self, members: &[usize], prefix: &str) -> String {
        let listed: Vec<&str> = members
            .iter()
            .map(|n| self.members[n - 1].as_str())
            .collect();
        format!("etcd://{}/{prefix}", listed.join(","))
    }

    /// The member (1..3) that leads now, as every member that answers sees it.
    pub async fn leader(&self) -> usize {
        for _ in 0..100 {
            for (i, member) in self.members.iter().enumerate() {
                let Ok(mut client) =
                    etcd_client::Client::connect([format!("http://{member}")], None).await
                else {
                    continue;
                };
                if let Ok(status) = client.status().await {
                    if status.header().map(|h| h.member_id()) == Some(status.leader()) {
                        return i + 1;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no member of the namespaced cluster says it leads");
    }

    /// Cuts member `n` (1..3) off from the other members, both ways,
    /// without a word; clients still reach it. Healed when the guard drops.
    pub fn isolate(&self, n: usize) -> Isolated<'_> {
        self.script("isolate", Some(n));
        Isolated(self)
    }

    fn script(&self, command: &str, member: Option<usize>) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/etcd_netns.sh");
        let mut cmd = Command::new("bash");
        cmd.arg(script).arg(command).arg(&self.dir);
        if let Some(n) = member {
            cmd.arg(n.to_string());
        }
        let status = cmd.status().unwrap();
        assert!(status.success(), "etcd_netns.sh {command} failed");
    }
}

/// A member cut off from the others until this is dropped.
pub struct Isolated<'a>(&'a Cluster);

impl Isolated<'_> {
    /// Heals the cut now.
    pub fn heal(self) {}
}

impl Drop for Isolated<'_> {
    fn drop(&mut self) {
        self.0.script("heal", None);
    }
}
