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
//! guard::set(conn, "chats/42", "the summary", lease).await?; // the same, and a refusal is told to its store
//! # Ok(()) }
//! ```
//!
//! Each call takes the fence or the lease itself ([`Under`]): given the
//! lease, a `stale` refusal is also told to its store, which counts the
//! late writes refused per group.

use super::driver::DriverFailure;
use super::redis_check::{RedisCheck, RedisObserved, RedisStep, RedisWrite, SCRIPT};
use super::Under;
use crate::error::Result;
use redis::aio::ConnectionLike;
use std::sync::OnceLock;

/// The guard's script, its SHA1 computed once.
fn guard_script() -> &'static redis::Script {
    static MADE: OnceLock<redis::Script> = OnceLock::new();
    MADE.get_or_init(|| redis::Script::new(SCRIPT))
}

/// `SET key value`, guarded by `fence`: `stale` (carrying the key, the
/// fence and the largest) when a larger fence wrote to `key`; nothing is
/// written then.
pub async fn set<'a, C: ConnectionLike + Send>(
    conn: &mut C,
    key: &str,
    value: &str,
    under: impl Into<Under<'a>>,
) -> Result<()> {
    let under = under.into();
    let write = RedisWrite::Set(value.into());
    under
        .check_async("redis", key, |fence| {
            run(conn, RedisCheck::new(key, fence, write))
        })
        .await
        .map(drop)
}

/// `DEL key`, guarded by `fence`; the fence stays recorded, so a late
/// holder's write is still refused.
pub async fn del<'a, C: ConnectionLike + Send>(
    conn: &mut C,
    key: &str,
    under: impl Into<Under<'a>>,
) -> Result<()> {
    let under = under.into();
    under
        .check_async("redis", key, |fence| {
            run(conn, RedisCheck::new(key, fence, RedisWrite::Del))
        })
        .await
        .map(drop)
}

/// `HSET key field value ...`, guarded by `fence`.
pub async fn hset<'a, C: ConnectionLike + Send>(
    conn: &mut C,
    key: &str,
    fields: &[(&str, &str)],
    under: impl Into<Under<'a>>,
) -> Result<()> {
    let under = under.into();
    let fields = fields
        .iter()
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect();
    let write = RedisWrite::HSet(fields);
    under
        .check_async("redis", key, |fence| {
            run(conn, RedisCheck::new(key, fence, write))
        })
        .await
        .map(drop)
}

/// The caller's own Lua `body`, run behind the check in one script:
/// `stale` (nothing run) when a larger fence wrote to `key`; else the
/// fence is recorded and `body` runs with `KEYS` = `key` then `keys` (all
/// in `key`'s hash slot, else `invalid`) and `ARGV` = `args`, and its
/// reply comes back. A body that fails half-way leaves what it wrote
/// (Redis does not roll a script back) under the recorded fence.
///
/// ```no_run
/// # async fn f(conn: &mut redis::aio::MultiplexedConnection, lease: &tinystore::Lease) -> Result<(), tinystore::Error> {
/// use tinystore::guard::redis as guard;
/// let body = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('INCR', KEYS[2])";
/// let saves = guard::script(conn, "user:{42}:profile", body, &["user:{42}:saves"], &["pro"], lease.fence()).await?;
/// # Ok(()) }
/// ```
pub async fn script<'a, C: ConnectionLike + Send>(
    conn: &mut C,
    key: &str,
    body: &str,
    keys: &[&str],
    args: &[&str],
    under: impl Into<Under<'a>>,
) -> Result<redis::Value> {
    let under = under.into();
    let write = RedisWrite::Script {
        body: body.to_string(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
        args: args.iter().map(|a| a.to_string()).collect(),
    };
    let reply = under
        .check_async("redis", key, |fence| {
            run(conn, RedisCheck::new(key, fence, write))
        })
        .await?;
    Ok(match reply {
        redis::Value::Array(mut items) if items.len() > 1 => items.swap_remove(1),
        _ => redis::Value::Nil,
    })
}

/// Makes the check's one step on `conn`; the script's reply when accepted.
async fn run<C: ConnectionLike + Send>(
    conn: &mut C,
    mut check: RedisCheck,
) -> Result<redis::Value> {
    let (text, keys, args) = match check.start() {
        RedisStep::Eval { script, keys, args } => (script, keys, args),
        RedisStep::Done(verdict) => return verdict.into_result().map(|()| redis::Value::Nil),
    };
    let theirs;
    let chosen = if text == SCRIPT {
        guard_script()
    } else {
        theirs = redis::Script::new(&text);
        &theirs
    };
    let mut invocation = chosen.prepare_invoke();
    for key in &keys {
        invocation.key(key);
    }
    for arg in &args {
        invocation.arg(arg);
    }
    let (observed, reply, cause) = match invocation.invoke_async::<redis::Value>(conn).await {
        Ok(reply) => (RedisObserved::Reply(texts(&reply)), reply, None),
        Err(err) => (
            RedisObserved::Failed(failure(&err)),
            redis::Value::Nil,
            Some(err),
        ),
    };
    match check.observe(observed) {
        RedisStep::Done(verdict) => verdict.into_result_caused_by(cause).map(|()| reply),
        RedisStep::Eval { .. } => Err(crate::Error::internal(
            "the Redis guard asked for a second script",
        )),
    }
}

/// The script's reply as the machine reads it: each element as text.
fn texts(reply: &redis::Value) -> Vec<String> {
    let text = |v: &redis::Value| match v {
        redis::Value::BulkString(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        redis::Value::SimpleString(s) => s.clone(),
        redis::Value::Int(n) => n.to_string(),
        other => format!("{other:?}"),
    };
    match reply {
        redis::Value::Array(items) => items.iter().map(text).collect(),
        other => vec![text(other)],
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
