//! The operations a greeted connection may ask for, one function each.

use super::connection::{Connection, Transport};
use crate::backend::Backend;
use crate::error::{Code, Error, Result};
use crate::poll::poll_now;
use crate::status::{StatusPage, DEFAULT_STATUS_LIMIT};
use crate::vocab::EngineGrant;
use crate::vocab::{Ask, LostTo, Request, WireTimes};
use crate::wire::{Op, Reply, WireKey, WireMode};
use std::path::PathBuf;
use std::sync::Arc;
use std::task::Poll;

/// Answers one request (some answers come later, from a task).
pub(super) fn handle(conn: &Arc<Connection>, id: Option<u64>, op: Op) {
    // One-way: never answered, with or without an id.
    if let Op::RefusedWrite {
        kind,
        name,
        resource,
    } = &op
    {
        return super::refused::refused_write(conn, kind, name, resource);
    }
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
            mode,
            weight,
            ttl_ms,
            wait_ms,
            max_hold_ms,
            data,
        } => {
            let times = WireTimes {
                ttl_ms,
                wait_ms,
                max_hold_ms,
                weight,
            };
            request(conn, &name, &key, limit, mode, times, data.as_deref())
                .and_then(|r| queue(conn, id, r))
        }
        Op::TryAcquire {
            name,
            key,
            limit,
            mode,
            weight,
            ttl_ms,
            max_hold_ms,
            data,
        } => {
            let times = WireTimes {
                ttl_ms,
                wait_ms: None,
                max_hold_ms,
                weight,
            };
            request(conn, &name, &key, limit, mode, times, data.as_deref())
                .and_then(|r| try_acquire(conn, id, r))
        }
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
        Op::Status { limit, offset } => status(conn, id, limit, offset),
        Op::Backup { path } => backup(conn, id, path),
        Op::Ping {} => {
            conn.reply(Reply::ok(Some(id)));
            Ok(())
        }
        Op::Campaign {
            name,
            value,
            ttl_ms,
            wait_ms,
            max_hold_ms,
        } => {
            let times = WireTimes {
                ttl_ms,
                wait_ms,
                max_hold_ms,
                weight: None,
            };
            Request::election_from_wire(&name, &value, times)
                .and_then(|request| queue(conn, id, told(conn, request)))
        }
        Op::Resign { lease } => release(conn, id, &lease),
        Op::Leader { name } => super::elect::leader(conn, id, &name),
        Op::Observe { name } => super::elect::observe(conn, id, &name),
        Op::Watch { kind, name, key } => super::watch::watch(conn, id, &kind, &name, key),
        Op::WatchPause { watch } => super::watch::pause(conn, id, watch, true),
        Op::WatchResume { watch } => super::watch::pause(conn, id, watch, false),
        Op::Advance { ms } => super::testing::advance(conn, id, ms),
        Op::Expire { lease } => super::testing::expire(conn, id, &lease),
        Op::ExpireKey { name, key } => super::testing::expire_key(conn, id, &name, &key),
        Op::Hello { .. } => Err(Error::new(Code::Invalid, "hello was already said")),
        Op::RefusedWrite { .. } => Ok(()),
    };
    if let Err(err) = result {
        conn.fail(Some(id), &err);
    }
}

/// Checks a request's fields and builds the engine's request. Leases over a
/// connection never keep themselves alive (the client renews them), and
/// their ends are told through the connection's one lost channel. The
/// lease keeps the `data` the client sent (none when it sent none).
fn request(
    conn: &Connection,
    name: &str,
    key: &WireKey,
    limit: Option<u32>,
    mode: Option<WireMode>,
    times: WireTimes,
    data: Option<&str>,
) -> Result<Request> {
    let ask = match (limit, mode) {
        (limit, None) => Ask::of_limit(limit),
        (None, Some(WireMode::Read)) => Ask::Read,
        (None, Some(WireMode::Write)) => Ask::Write,
        (Some(_), Some(_)) => {
            return Err(Error::invalid(format!(
                "an acquire of {name} gave both \"limit\" (a semaphore's) and \"mode\" (a read-write lock's)"
            )))
        }
    };
    let request = Request::from_wire(name, &key.text(), ask, times, data)?;
    Ok(told(conn, request))
}

/// `request`, its lease's end told through the connection's lost channel.
fn told(conn: &Connection, request: Request) -> Request {
    request.told_through(LostTo::Channel(conn.lost_to()))
}

/// Waits first come first served for `request` (an acquire's or a
/// campaign's), answering request `id` when it is granted or gives up.
fn queue(conn: &Arc<Connection>, id: u64, request: Request) -> Result<()> {
    // A free key is granted at once, with nothing to wait for or cancel
    // (unless `id` is in use by a wait or an observer: refused).
    conn.state().check_id_free(id)?;
    if grant_if_free(conn, id, &request)? {
        return Ok(());
    }
    let cancelled = conn.state().add_pending(id)?;
    let what = request.key().to_string();
    let engine = conn.engine.clone();
    let mut waiting = Box::pin(async move {
        let acquiring = engine.acquire(request.clone());
        tokio::select! {
            got = request.within_wait(acquiring) => got,
            _ = cancelled => Err(Error::new(Code::Timeout, format!(
                "the acquire of {} was cancelled", request.key()
            ))),
        }
    });
    // Polled once here, the acquire takes its place in its key's queue before the next
    // request of this connection is read: a connection's acquires queue in
    // the order they were sent. A free key is granted without a task.
    match poll_now(waiting.as_mut()) {
        Poll::Ready(outcome) => finish_acquire(conn, id, &what, outcome),
        Poll::Pending => conn.waits().push((id, what), waiting),
    }
    Ok(())
}

/// Answers an acquire: with its grant, unless it was cancelled meanwhile or
/// the connection closed (then the grant is released).
pub(super) fn finish_acquire(
    conn: &Arc<Connection>,
    id: u64,
    what: &str,
    outcome: Result<EngineGrant>,
) {
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
        // A closed connection is told nothing more.
        Err(_) if st.is_closed() => {}
        Err(err) => conn.fail(Some(id), &err),
    }
}

fn try_acquire(conn: &Arc<Connection>, id: u64, request: Request) -> Result<()> {
    conn.state().check_id_free(id)?;
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
fn grant_if_free(conn: &Arc<Connection>, id: u64, request: &Request) -> Result<bool> {
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
fn granted(
    conn: &Arc<Connection>,
    st: &mut super::leases::ConnectionLeases,
    id: u64,
    grant: EngineGrant,
) {
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
pub(super) fn tell_lost(conn: &Connection, lease: &str, reason: &Error) {
    let mut st = conn.state();
    if st.take(lease).is_ok() {
        conn.lost(lease, reason);
    }
}

fn renew(conn: &Arc<Connection>, id: u64, lease: &str) -> Result<()> {
    let engine_id = conn.state().get(lease)?;
    conn.engine.renew(engine_id).map_err(|e| about(e, lease))?;
    conn.reply(Reply::ok(Some(id)));
    Ok(())
}

fn release(conn: &Arc<Connection>, id: u64, lease: &str) -> Result<()> {
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

/// Answers `status` with at most `limit` held leases and lines of waiters,
/// after the first `offset`.
fn status(conn: &Arc<Connection>, id: u64, limit: Option<u32>, offset: Option<u64>) -> Result<()> {
    let page = StatusPage {
        offset: offset.map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX)),
        limit: limit.map_or(DEFAULT_STATUS_LIMIT, |l| l as usize),
    };
    page.check()?;
    conn.reply(Reply {
        status: Some(Box::new(conn.engine.status(page))),
        ..Reply::ok(Some(id))
    });
    Ok(())
}

fn backup(conn: &Arc<Connection>, id: u64, path: String) -> Result<()> {
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
