//! What the command's etcd tests share: the cluster `make test-etcd`
//! started, under a prefix no other run uses.

use std::time::{SystemTime, UNIX_EPOCH};

/// A store address on the cluster in TINYSTORE_ETCD, under a fresh prefix.
pub fn fresh_address(test: &str) -> String {
    let members = std::env::var("TINYSTORE_ETCD").expect(
        "TINYSTORE_ETCD names the etcd members (HOST:PORT,...); `make test-etcd` starts a cluster and sets it",
    );
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "etcd://{members}/tests/cli-{test}-{}-{nanos}",
        std::process::id()
    )
}
