//! The operations a greeted connection may ask for, one function each.

use super::connection::{Conn, Transport};
use crate::backend::Backend;
use crate::engine::{Granted, KeyId, LostTo, Request};
use crate::error::{Code, Error, Result};
use crate::group::MAX_LIMIT;
use crate::names::{check_key, check_name};
use crate::options::{check_ttl, DEFAULT_TTL};
use crate::wire::{Op, Reply, WireKey};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The longest `wait_ms` an acquire may ask for: 30 days.
pub const MAX_WAIT: Duration = Duration::from_secs(30 * 24 * 3600);

/// Answers one request (some answers come later, from a task).
pub(super) fn handle(conn: &Arc<Conn>, id: Option<u64>, op: Op) {
    let Some(id) = id else {
        let err = Error::new(
            Code::Invalid,
            format!("request {:?} has no \"id\"", op.name()),
        );
        return conn.fail(None, &err);
    };
    let result = match op {
        Op::Acquire {
            name,
            key,
            limit,
            ttl_ms,
            wait_ms,
        } => acquire(conn, id, &name, &key, limit, ttl_ms, wait_ms),
        Op::TryAcquire {
            name,
            key,
            limit,
            ttl_ms,
        } => try_acquire(conn, id, &name, &key, limit, ttl_ms),
        Op::Renew { lease } => renew(conn, id, &lease),
        Op::Release { lease } => release(conn, id, &lease),
        Op::Cancel { target } => {
            let cancelled = conn.state().cancel(target);
            conn.reply(Reply {
                cancelled: Some(cancelled),
                ..Reply::ok(Some(id))
            });
            Ok(())
        }
        Op::Status {} => {
            conn.reply(Reply {
                status: Some(conn.engine.status()),
                ..Reply::ok(Some(id))
            });
            Ok(())
        }
        Op::Backup { path } => backup(conn, id, path),
        Op::Ping {} => {
            conn.reply(Reply::ok(Some(id)));
            Ok(())
        }
        Op::Hello { .. } => Err(Error::new(Code::Invalid, "hello was already said")),
    };
    if let Err(err) = result {
        conn.fail(Some(id), &err);
    }
}

/// Checks a request's fields and builds the engine's request. Leases over a
/// connection never keep themselves alive (the client renews them), and
/// their ends are told through the connection's one lost channel.
fn request(
    conn: &Conn,
    name: &str,
    key: &WireKey,
    limit: Option<u32>,
    ttl_ms: Option<u64>,
) -> Result<Request> {
    check_name(name)?;
    let key = key.text();
    check_key(name, &key)?;
    if let Some(limit) = limit {
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Error::new(
                Code::Invalid,
                format!(
                    "semaphore {name} has limit {limit}; a limit must be from 1 to {MAX_LIMIT}"
                ),
            ));
        }
    }
    let ttl = ttl_ms.map_or(DEFAULT_TTL, Duration::from_millis);
    check_ttl(ttl)?;
    Ok(Request {
        key: Arc::new(KeyId::new(limit.is_none(), name, &key)),
        limit: limit.unwrap_or(1),
        ttl,
        keepalive: false,
        lost_to: LostTo::Channel(conn.lost_to.clone()),
    })
}

fn acquire(
    conn: &Arc<Conn>,
    id: u64,
    name: &str,
    key: &WireKey,
    limit: Option<u32>,
    ttl_ms: Option<u64>,
    wait_ms: Option<u64>,
) -> Result<()> {
    let request = request(conn, name, key, limit, ttl_ms)?;
    let wait = wait_ms.map(Duration::from_millis);
    if wait.is_some_and(|w| w > MAX_WAIT) {
        return Err(Error::new(
            Code::Invalid,
            format!("wait_ms {} is over the most, 30 days", wait_ms.unwrap_or(0)),
        ));
    }
    // A free key is granted at once, with nothing to wait for or cancel
    // (unless `id` is a waiting acquire's, which add_pending refuses).
    if !conn.state().is_pending(id) && grant_if_free(conn, id, &request)? {
        return Ok(());
    }
    let cancelled = conn.state().add_pending(id)?;
    let key = request.key.clone();
    let what = key.to_string();
    let engine = conn.engine.clone();
    let mut waiting = Box::pin(async move {
        let acquiring = engine.acquire(request);
        tokio::select! {
            got = async {
                match wait {
                    Some(w) => tokio::time::timeout(w, acquiring).await.unwrap_or_else(|_| {
                        Err(Error::new(Code::Timeout, format!(
                            "waited {w:?} for {} without getting it", key
                        )))
                    }),
                    None => acquiring.await,
                }
            } => got,
            _ = cancelled => Err(Error::new(Code::Timeout, format!(
                "the acquire of {key} was cancelled"
            ))),
        }
    });
    // Polled once here, the acquire takes its place in line before the next
    // request of this connection is read: a connection's acquires queue in
    // the order they were sent. A free key is granted without a task.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match waiting.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(outcome) => finish_acquire(conn, id, &what, outcome),
        std::task::Poll::Pending => {
            let overflow = conn.waits().push((id, what), waiting);
            if let Some(((id, what), waiting)) = overflow {
                let conn = conn.clone();
                tokio::spawn(async move {
                    let outcome = waiting.await;
                    finish_acquire(&conn, id, &what, outcome);
                });
            }
        }
    }
    Ok(())
}

/// Answers an acquire: with its grant, unless it was cancelled meanwhile or
/// the connection closed (then the grant is released).
pub(super) fn finish_acquire(conn: &Arc<Conn>, id: u64, what: &str, outcome: Result<Granted>) {
    let mut st = conn.state();
    let still_wanted = st.finish_pending(id) && !st.is_closed();
    match outcome {
        Ok(grant) if still_wanted => granted(conn, &mut st, id, grant),
        Ok(grant) => {
            let closed = st.is_closed();
            drop(st);
            let _ = conn.engine.release(grant.id);
            if !closed {
                let err = Error::new(
                    Code::Timeout,
                    format!("the acquire of {what} was cancelled"),
                );
                conn.fail(Some(id), &err);
            }
        }
        Err(err) => conn.fail(Some(id), &err),
    }
}

fn try_acquire(
    conn: &Arc<Conn>,
    id: u64,
    name: &str,
    key: &WireKey,
    limit: Option<u32>,
    ttl_ms: Option<u64>,
) -> Result<()> {
    let request = request(conn, name, key, limit, ttl_ms)?;
    if !grant_if_free(conn, id, &request)? {
        conn.reply(Reply {
            granted: Some(false),
            ..Reply::ok(Some(id))
        });
    }
    Ok(())
}

/// Grants `request` and answers request `id` with the lease if the key is
/// free now and the connection has room; false (nothing answered) if not.
fn grant_if_free(conn: &Arc<Conn>, id: u64, request: &Request) -> Result<bool> {
    conn.state().check_room()?;
    match conn.engine.try_acquire(request)? {
        Some(grant) => {
            granted(conn, &mut conn.state(), id, grant);
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Records a grant and answers with it. The reply goes out under the
/// connection's lock, so a `lost` event for the lease always comes after it.
fn granted(conn: &Arc<Conn>, st: &mut super::leases::Leases, id: u64, grant: Granted) {
    let lease = super::leases::wire_id(grant.id);
    st.hold(grant.id);
    conn.reply(Reply {
        granted: Some(true),
        lease: Some(lease),
        fence: grant.fence,
        ..Reply::ok(Some(id))
    });
}

/// Tells the client its lease ended, unless it released it itself.
pub(super) fn tell_lost(conn: &Conn, lease: &str, reason: &Error) {
    let mut st = conn.state();
    if st.take(lease).is_ok() {
        conn.lost(lease, reason);
    }
}

fn renew(conn: &Arc<Conn>, id: u64, lease: &str) -> Result<()> {
    let engine_id = conn.state().get(lease)?;
    conn.engine.renew(engine_id).map_err(|e| about(e, lease))?;
    conn.reply(Reply::ok(Some(id)));
    Ok(())
}

fn release(conn: &Arc<Conn>, id: u64, lease: &str) -> Result<()> {
    let held = conn.state().take(lease)?;
    conn.engine.release(held).map_err(|e| about(e, lease))?;
    conn.reply(Reply::ok(Some(id)));
    Ok(())
}

/// An engine error, naming the lease by its wire id.
fn about(err: Error, lease: &str) -> Error {
    if err.code() == Code::LeaseLost {
        return Error::new(
            Code::LeaseLost,
            format!("lease {lease:?} is not held: it ran out or was released"),
        );
    }
    err
}

fn backup(conn: &Arc<Conn>, id: u64, path: String) -> Result<()> {
    if matches!(conn.transport, Transport::Tcp(_)) {
        return Err(Error::new(
            Code::Unauthorized,
            "backup writes a file on the server's machine; it is served on the Unix socket only",
        ));
    }
    let dest = PathBuf::from(&path);
    if !dest.is_absolute() {
        return Err(Error::new(
            Code::Invalid,
            format!("backup path {path:?} must be absolute"),
        ));
    }
    let conn = conn.clone();
    tokio::spawn(async move {
        match conn.embedded.backup(&dest).await {
            Ok(()) => conn.reply(Reply::ok(Some(id))),
            Err(err) => conn.fail(Some(id), &err),
        }
    });
    Ok(())
}
