//! One connection's task: the greeting (and on TCP, authentication), then
//! requests read one line at a time, each answered by ops.rs; this task
//! reads, answers and writes every line the client gets.

use super::auth::token_matches;
use super::connection::{Connection, Transport};
use super::elect::tell_change;
use super::gate::Pass;
use super::metrics::Metrics;
use super::ops::{finish_acquire, handle, tell_lost};
use super::shutdown::Shutdown;
use crate::embedded::Embedded;
use crate::error::{Code, Error};
use crate::vocab::LeaseId;
use crate::wire::{
    decode_request, FrameRead, FrameReader, Op, Reply, MAX_FRAME_BYTES, MAX_STRANGERS,
    MAX_STRANGER_FRAME_BYTES, STRANGER_GRACE, VERSION,
};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;

/// What woke a connection's task.
enum Wake {
    Frame(std::io::Result<FrameRead>),
    Queued(String),
    Waited((u64, String), crate::error::Result<crate::vocab::Granted>),
    Lost(LeaseId, Error),
    Changed(super::observers::Change),
    Shutdown,
    HelloLate,
    Evicted,
}

/// Serves one connection until the client leaves or the server shuts down.
/// This task reads requests and writes every line the client gets: replies
/// queued while it handles a request go out in the same write, and those
/// that come later (a granted wait, a `lost` event, an observer's change)
/// wake it. Returns how many waits and leases it gave up as it closed.
pub(super) async fn serve<S>(
    stream: S,
    transport: Transport,
    mut pass: Pass,
    embedded: Arc<Embedded>,
    metrics: Arc<Metrics>,
    mut shutdown: Shutdown,
) -> usize
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read, write) = tokio::io::split(stream);
    let mut reader = BufReader::new(read);
    let mut frames = match pass.frame_limit() {
        Some(limit) => FrameReader::stopping(limit),
        None => FrameReader::new(MAX_FRAME_BYTES),
    };
    let mut writer = BufWriter::new(write);
    let (conn, mut rx, mut lost) = Connection::new(embedded, transport, metrics);
    let mut greeted = false;
    let mut shutting_down = false;
    let hello_timeout = pass.hello_timeout();
    let hello_by = tokio::time::Instant::now() + hello_timeout;
    let mut spare = Vec::new();
    loop {
        let wake = tokio::select! {
            frame = frames.next(&mut reader) => Wake::Frame(frame),
            Some(line) = rx.recv() => Wake::Queued(line),
            (what, outcome) = std::future::poll_fn(|cx| conn.waits().poll_next(cx)) => {
                Wake::Waited(what, outcome)
            }
            Some((lease, reason)) = lost.recv() => Wake::Lost(lease, reason),
            change = std::future::poll_fn(|cx| conn.observers().poll_next(cx)) => {
                Wake::Changed(change)
            }
            _ = shutdown.recv() => Wake::Shutdown,
            _ = tokio::time::sleep_until(hello_by), if !greeted => Wake::HelloLate,
            _ = pass.evicted(), if !greeted => Wake::Evicted,
        };
        conn.outbox().serving = true;
        let keep = match wake {
            Wake::Frame(Ok(FrameRead::Line(line))) => {
                let keep = on_line(&conn, &line, &mut greeted, &mut pass);
                if greeted {
                    frames.relax(MAX_FRAME_BYTES);
                }
                keep
            }
            Wake::Frame(Ok(FrameRead::TooLong(len))) => on_too_long(&conn, len, greeted),
            Wake::Frame(Ok(FrameRead::End) | Err(_)) => false,
            Wake::Queued(line) => write_line(&mut writer, &line).await.is_ok(),
            Wake::Waited((id, what), outcome) => {
                finish_acquire(&conn, id, &what, outcome);
                true
            }
            Wake::Lost(lease, reason) => {
                tell_lost(&conn, &super::leases::wire_id(lease), &reason);
                true
            }
            Wake::Changed((id, change)) => {
                tell_change(&conn, id, change);
                true
            }
            Wake::Shutdown => {
                shutting_down = true;
                false
            }
            Wake::HelloLate => {
                unauthorized(&conn, None, &format!("no hello within {hello_timeout:?}"))
            }
            Wake::Evicted => {
                let why = format!(
                    "no hello within {STRANGER_GRACE:?}, while {MAX_STRANGERS} connections \
                     wait to authenticate and more come: the one waiting longest is closed"
                );
                unauthorized(&conn, None, &why)
            }
        };
        // Write what is queued, in the order it was queued: the channel's
        // lines came before `serving` was set (nothing joins them while it
        // is), the outbox's after. Flush once no more requests are buffered.
        let mut written = drain(&mut rx, &mut writer).await;
        {
            let mut outbox = conn.outbox();
            outbox.serving = false;
            std::mem::swap(&mut outbox.lines, &mut spare);
        }
        if written.is_ok() {
            written = writer.write_all(&spare).await;
        }
        spare.clear();
        if written.is_err() || !keep {
            break;
        }
        if reader.buffer().is_empty() && writer.flush().await.is_err() {
            break;
        }
    }
    if shutting_down {
        // The engine closed first: let the watchers and waits tell the client.
        for _ in 0..200 {
            if conn.state().is_empty() {
                break;
            }
            tokio::select! {
                Some(line) = rx.recv() => { let _ = write_line(&mut writer, &line).await; }
                ((id, what), outcome) = std::future::poll_fn(|cx| conn.waits().poll_next(cx)) => {
                    finish_acquire(&conn, id, &what, outcome);
                }
                Some((lease, reason)) = lost.recv() => {
                    tell_lost(&conn, &super::leases::wire_id(lease), &reason);
                }
                (id, change) = std::future::poll_fn(|cx| conn.observers().poll_next(cx)) => {
                    tell_change(&conn, id, change);
                }
                _ = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
        }
    }
    let given_up = conn.close().await;
    drop(conn);
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = drain(&mut rx, &mut writer).await;
        let _ = writer.flush().await;
    })
    .await;
    given_up
}

/// Writes every line queued now.
async fn drain<W: AsyncWrite + Unpin>(
    rx: &mut mpsc::UnboundedReceiver<String>,
    writer: &mut BufWriter<W>,
) -> std::io::Result<()> {
    while let Ok(line) = rx.try_recv() {
        write_line(writer, &line).await?;
    }
    Ok(())
}

/// Handles one line; false closes the connection.
fn on_line(conn: &Arc<Connection>, line: &[u8], greeted: &mut bool, pass: &mut Pass) -> bool {
    let frame = match decode_request(line) {
        Ok(frame) => frame,
        Err((id, err)) => {
            if !*greeted && conn.is_tcp() {
                return unauthorized(conn, id, "the first frame must be a valid hello");
            }
            conn.fail(id, &err);
            return true;
        }
    };
    let id = frame.id;
    match (frame.op, *greeted) {
        (Op::Hello { version, token }, false) => hello(conn, id, version, token, greeted, pass),
        (Op::Hello { .. }, true) => {
            conn.fail(id, &Error::new(Code::Invalid, "hello was already said"));
            true
        }
        (op, false) => {
            let what = format!("{:?} came before hello", op.name());
            if conn.is_tcp() {
                return unauthorized(conn, id, &format!("{what}; authenticate first"));
            }
            conn.fail(
                id,
                &Error::new(Code::Invalid, format!("{what}; say hello first")),
            );
            true
        }
        (op, true) => {
            let (name, started) = (op.name(), std::time::Instant::now());
            handle(conn, id, op);
            conn.metrics.request(name, started.elapsed());
            true
        }
    }
}

fn hello(
    conn: &Arc<Connection>,
    id: Option<u64>,
    version: u32,
    token: Option<String>,
    greeted: &mut bool,
    pass: &mut Pass,
) -> bool {
    if let Some(expected) = conn.transport.token() {
        let given = token.unwrap_or_default();
        if !token_matches(given.as_bytes(), expected.as_bytes()) {
            return unauthorized(conn, id, "the token is missing or wrong");
        }
    }
    if version != VERSION {
        let err = Error::new(
            Code::Invalid,
            format!("this server speaks wire version {VERSION}, not {version}"),
        );
        conn.fail(id, &err);
        // On TCP nothing is served before a successful hello: it closes.
        return !conn.is_tcp();
    }
    if let Err(err) = pass.greeted() {
        conn.fail(id, &err);
        return false;
    }
    *greeted = true;
    conn.reply(Reply {
        id,
        ok: true,
        version: Some(VERSION),
        epoch: Some(conn.engine.epoch().to_string()),
        ..Reply::default()
    });
    true
}

fn on_too_long(conn: &Arc<Connection>, len: usize, greeted: bool) -> bool {
    if !greeted && conn.is_tcp() {
        let why = format!(
            "a frame of {len} bytes or more came before hello; before hello the limit is \
             {MAX_STRANGER_FRAME_BYTES} bytes"
        );
        return unauthorized(conn, None, &why);
    }
    let err = Error::new(
        Code::Limit,
        format!("a frame of {len} bytes is over the limit of {MAX_FRAME_BYTES} bytes"),
    );
    conn.fail(None, &err);
    true
}

/// Tells a client it is not authenticated (and logs why, never a token);
/// the connection then closes.
fn unauthorized(conn: &Connection, id: Option<u64>, why: &str) -> bool {
    tracing::warn!(target: "tinystore::auth", why, "refused authentication");
    conn.metrics.refused(conn.transport.label());
    conn.fail(id, &Error::new(Code::Unauthorized, why));
    false
}

async fn write_line<W: AsyncWrite + Unpin>(
    write: &mut BufWriter<W>,
    line: &str,
) -> std::io::Result<()> {
    write.write_all(line.as_bytes()).await?;
    write.write_all(b"\n").await
}
