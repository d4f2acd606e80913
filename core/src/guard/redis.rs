//! The Redis guard on redis-rs (cargo feature `guard-redis`), on the async
//! connection the application already made (a `MultiplexedConnection`, a
//! `ConnectionManager`, a cluster connection): each call runs the core's
//! [`RedisCheck`] script through redis-rs's `Script`, which sends `EVALSHA`
//! and, on `NOSCRIPT`, `EVAL`.
//!
//! ```no_run
//! # async fn f(conn: &mut redis::aio::MultiplexedConnection, lease: &tinystore::Lease) -> Result<(), tinystore::Error> {
//! use tinystore::guard::redis as guard;
//! guard::set(conn, "chats/42", "the summary", lease.fence()).await?; // `stale` when a later holder wrote
//! # Ok(()) }
//! ```

use super::driver::DriverFailure;
use super::redis_check::{RedisCheck, RedisObserved, RedisStep, RedisWrite, SCRIPT};
use crate::error::Result;
use crate::fence::Fence;
use redis::aio::ConnectionLike;
use std::sync::OnceLock;

/// The guard's script, its SHA1 computed once.
fn script() -> &'static redis::Script {
    static MADE: OnceLock<redis::Script> = OnceLock::new();
    MADE.get_or_init(|| redis::Script::new(SCRIPT))
}

/// `SET key value`, guarded by `fence`: `stale` (carrying the key, the
/// fence and the largest) when a larger fence wrote to `key`; nothing is
/// written then.
pub async fn set<C: ConnectionLike + Send>(
    conn: &mut C,
    key: &str,
    value: &str,
    fence: Fence,
) -> Result<()> {
    run(
        conn,
        RedisCheck::new(key, fence, RedisWrite::Set(value.into())),
    )
    .await
}

/// `DEL key`, guarded by `fence`; the fence stays recorded, so a late
/// holder's write is still refused.
pub async fn del<C: ConnectionLike + Send>(conn: &mut C, key: &str, fence: Fence) -> Result<()> {
    run(conn, RedisCheck::new(key, fence, RedisWrite::Del)).await
}

/// `HSET key field value ...`, guarded by `fence`.
pub async fn hset<C: ConnectionLike + Send>(
    conn: &mut C,
    key: &str,
    fields: &[(&str, &str)],
    fence: Fence,
) -> Result<()> {
    let fields = fields
        .iter()
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect();
    run(conn, RedisCheck::new(key, fence, RedisWrite::HSet(fields))).await
}

/// Makes the check's one step on `conn`.
async fn run<C: ConnectionLike + Send>(conn: &mut C, mut check: RedisCheck) -> Result<()> {
    let (keys, args) = match check.start() {
        RedisStep::Eval { keys, args, .. } => (keys, args),
        RedisStep::Done(verdict) => return verdict.into_result(),
    };
    let mut invocation = script().prepare_invoke();
    for key in &keys {
        invocation.key(key);
    }
    for arg in &args {
        invocation.arg(arg);
    }
    let (observed, cause) = match invocation.invoke_async::<Vec<String>>(conn).await {
        Ok(reply) => (RedisObserved::Reply(reply), None),
        Err(err) => (RedisObserved::Failed(failure(&err)), Some(err)),
    };
    match check.observe(observed) {
        RedisStep::Done(verdict) => verdict.into_result_caused_by(cause),
        RedisStep::Eval { .. } => Err(crate::Error::internal(
            "the Redis guard asked for a second script",
        )),
    }
}

/// What redis-rs reports of a failed call: the server's error code
/// (`WRONGTYPE`, `NOPERM`, `LOADING`, ...), or `connection` for a refused,
/// dropped or timed-out connection.
pub fn failure(err: &redis::RedisError) -> DriverFailure {
    let lost = err.is_connection_refusal()
        || err.is_connection_dropped()
        || err.is_timeout()
        || err.is_io_error();
    DriverFailure {
        error_code: if lost {
            Some("connection".to_string())
        } else {
            err.code().map(str::to_string)
        },
        ..DriverFailure::new(err.to_string())
    }
}
