//! The epoch of a store on etcd: the high 64 bits of its fences, kept under
//! `/PREFIX/epoch`. It is set once, to the time in milliseconds when the
//! prefix was first used, and read again at every grant, so that raising it
//! (after a cluster was restored from a snapshot) takes effect at once for
//! every client.

use super::call::retry;
use super::layout::Layout;
use super::members::Members;
use crate::error::{Code, Error, Result};
use etcd_client::{Compare, CompareOp, GetResponse, Txn, TxnOp, TxnOpResponse};

/// Reads the epoch, setting it to `now_ms` if the prefix has none yet.
pub(crate) async fn ensure(client: &Members, layout: &Layout, now_ms: u64) -> Result<u64> {
    let key = layout.epoch();
    let txn = Txn::new()
        .when([Compare::create_revision(key.as_str(), CompareOp::Equal, 0)])
        .and_then([
            TxnOp::put(key.as_str(), now_ms.to_string(), None),
            TxnOp::get(key.as_str(), None),
        ])
        .or_else([TxnOp::get(key.as_str(), None)]);
    let what = format!("reading the epoch at {key} on etcd");
    let reply = retry(client, &what, || {
        let (mut kv, txn) = (client.kv_client(), txn.clone());
        async move { kv.txn(txn).await }
    })
    .await?;
    let get = reply.op_responses().into_iter().find_map(|r| match r {
        TxnOpResponse::Get(get) => Some(get),
        _ => None,
    });
    from_get(layout, get.as_ref())
}

/// Raises the epoch to max(now in ms, epoch + 1) and returns it: what to do
/// after restoring the cluster from a snapshot, before any client grants.
pub(crate) async fn bump(client: &Members, layout: &Layout, now_ms: u64) -> Result<u64> {
    let key = layout.epoch();
    let what = format!("raising the epoch at {key} on etcd");
    loop {
        let got = retry(client, &what, || {
            let (mut kv, key) = (client.kv_client(), key.clone());
            async move { kv.get(key, None).await }
        })
        .await?;
        let (old, revision) = match got.kvs().first() {
            Some(kv) => (parse(layout, kv.value())?, kv.mod_revision()),
            None => (0, 0),
        };
        let new = now_ms.max(old.saturating_add(1));
        let txn = Txn::new()
            .when([Compare::mod_revision(
                key.as_str(),
                CompareOp::Equal,
                revision,
            )])
            .and_then([TxnOp::put(key.as_str(), new.to_string(), None)]);
        let done = retry(client, &what, || {
            let (mut kv, txn) = (client.kv_client(), txn.clone());
            async move { kv.txn(txn).await }
        })
        .await?;
        if done.succeeded() {
            return Ok(new);
        }
    }
}

/// The epoch in the answer to a get of the epoch key.
pub(crate) fn from_get(layout: &Layout, get: Option<&GetResponse>) -> Result<u64> {
    match get.and_then(|g| g.kvs().first()) {
        Some(kv) => parse(layout, kv.value()),
        None => Err(Error::new(
            Code::Corrupt,
            format!(
                "{} is missing on etcd: the prefix was wiped while in use; \
                 raise it with bump_epoch before granting again",
                layout.epoch()
            ),
        )),
    }
}

fn parse(layout: &Layout, value: &[u8]) -> Result<u64> {
    std::str::from_utf8(value)
        .ok()
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| {
            Error::new(
                Code::Corrupt,
                format!(
                    "{} on etcd holds {:?}, not a decimal epoch",
                    layout.epoch(),
                    String::from_utf8_lossy(value)
                ),
            )
        })
}
