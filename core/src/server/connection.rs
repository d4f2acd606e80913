//! One connection: the greeting (and on TCP, authentication), then requests
//! read one line at a time; one task reads, answers and writes.

use super::auth::token_matches;
use super::leases::Leases;
use super::ops::{finish_acquire, tell_lost};
use super::shutdown::Shutdown;
use super::waits::Waits;
use crate::embedded::Embedded;
use crate::engine::{Engine, LeaseId};
use crate::error::{Code, Error};
use crate::wire::{
    decode_request, Event, FrameRead, FrameReader, Op, Reply, ServerFrame, MAX_FRAME_BYTES, VERSION,
};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;

/// How long a new connection has to say hello before it is closed.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How a connection reached the server.
#[derive(Clone)]
pub(crate) enum Transport {
    /// The store's Unix socket: the file mode is the access control.
    Unix,
    /// TCP: `hello` must carry this token before anything is served.
    Tcp(Arc<str>),
}

/// One connection's shared half: what its request handlers, acquire tasks
/// and lease watchers use.
pub(super) struct Conn {
    pub engine: Arc<Engine>,
    pub embedded: Arc<Embedded>,
    pub transport: Transport,
    out: mpsc::UnboundedSender<String>,
    outbox: Mutex<Outbox>,
    state: Mutex<Leases>,
    waits: Mutex<Waits>,
    /// Where the engine tells this connection that one of its leases ended.
    pub lost_to: mpsc::UnboundedSender<(LeaseId, Error)>,
}

impl Conn {
    /// The connection's leases and waits.
    pub fn state(&self) -> MutexGuard<'_, Leases> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection's waiting acquires.
    pub fn waits(&self) -> MutexGuard<'_, Waits> {
        self.waits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a frame for the client: while the connection's task is
    /// handling something, into its outbox (it writes that out next, with no
    /// wakeup); otherwise through the channel that wakes it. Both happen
    /// under the outbox's lock, so the task can write the channel's lines
    /// before the outbox's and keep the order frames were queued in.
    pub fn send(&self, frame: ServerFrame) {
        let line = frame.encode();
        let mut outbox = self.outbox();
        if outbox.serving {
            outbox.lines.extend_from_slice(line.as_bytes());
            outbox.lines.push(b'\n');
        } else {
            let _ = self.out.send(line);
        }
    }

    fn outbox(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a reply.
    pub fn reply(&self, reply: Reply) {
        self.send(ServerFrame::Reply(reply));
    }

    /// Queues an error reply.
    pub fn fail(&self, id: Option<u64>, err: &Error) {
        self.reply(Reply::err(id, err));
    }

    /// Queues a `lost` event.
    pub fn lost(&self, lease: &str, reason: &Error) {
        self.send(ServerFrame::Event(Event::lost(lease, reason)));
    }

    /// Releases every lease and cancels every wait of this connection.
    fn close(&self) {
        let waits = std::mem::take(&mut *self.waits());
        drop(waits);
        let held = self.state().close();
        for lease in held {
            let _ = self.engine.release(lease);
        }
    }

    fn is_tcp(&self) -> bool {
        matches!(self.transport, Transport::Tcp(_))
    }
}

/// Lines for the client queued while the connection's task handles an event.
#[derive(Default)]
struct Outbox {
    /// Whether the connection's task is handling an event (and so writes
    /// `lines` when it is done).
    serving: bool,
    lines: Vec<u8>,
}

/// What woke a connection's task.
enum Wake {
    Frame(std::io::Result<FrameRead>),
    Queued(String),
    Waited((u64, String), crate::error::Result<crate::engine::Granted>),
    Lost(LeaseId, Error),
    Shutdown,
    HelloLate,
}

/// Serves one connection until the client leaves or the server shuts down.
/// This task reads requests and writes every line the client gets: replies
/// queued while it handles a request go out in the same write, and those
/// that come later (a granted wait, a `lost` event) wake it.
pub(super) async fn serve<S>(
    stream: S,
    transport: Transport,
    embedded: Arc<Embedded>,
    mut shutdown: Shutdown,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read, write) = tokio::io::split(stream);
    let mut reader = BufReader::new(read);
    let mut frames = FrameReader::new(MAX_FRAME_BYTES);
    let mut writer = BufWriter::new(write);
    let (out, mut rx) = mpsc::unbounded_channel();
    let (lost_to, mut lost) = mpsc::unbounded_channel();
    let conn = Arc::new(Conn {
        engine: embedded.engine().clone(),
        embedded,
        transport,
        out,
        outbox: Mutex::new(Outbox::default()),
        state: Mutex::new(Leases::default()),
        waits: Mutex::new(Waits::default()),
        lost_to,
    });
    let mut greeted = false;
    let mut shutting_down = false;
    let hello_by = tokio::time::Instant::now() + HELLO_TIMEOUT;
    let mut spare = Vec::new();
    loop {
        let wake = tokio::select! {
            frame = frames.next(&mut reader) => Wake::Frame(frame),
            Some(line) = rx.recv() => Wake::Queued(line),
            (what, outcome) = std::future::poll_fn(|cx| conn.waits().poll_next(cx)) => {
                Wake::Waited(what, outcome)
            }
            Some((lease, reason)) = lost.recv() => Wake::Lost(lease, reason),
            _ = shutdown.recv() => Wake::Shutdown,
            _ = tokio::time::sleep_until(hello_by), if !greeted => Wake::HelloLate,
        };
        conn.outbox().serving = true;
        let keep = match wake {
            Wake::Frame(Ok(FrameRead::Line(line))) => on_line(&conn, &line, &mut greeted),
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
            Wake::Shutdown => {
                shutting_down = true;
                false
            }
            Wake::HelloLate => {
                let why = format!("no hello within {HELLO_TIMEOUT:?}");
                conn.fail(None, &Error::new(Code::Unauthorized, why));
                false
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
                _ = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
        }
    }
    conn.close();
    drop(conn);
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = drain(&mut rx, &mut writer).await;
        let _ = writer.flush().await;
    })
    .await;
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
fn on_line(conn: &Arc<Conn>, line: &[u8], greeted: &mut bool) -> bool {
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
        (Op::Hello { version, token }, false) => hello(conn, id, version, token, greeted),
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
            super::ops::handle(conn, id, op);
            true
        }
    }
}

fn hello(
    conn: &Arc<Conn>,
    id: Option<u64>,
    version: u32,
    token: Option<String>,
    greeted: &mut bool,
) -> bool {
    if let Transport::Tcp(expected) = &conn.transport {
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
        return true;
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

fn on_too_long(conn: &Arc<Conn>, len: usize, greeted: bool) -> bool {
    if !greeted && conn.is_tcp() {
        return unauthorized(conn, None, "an oversized frame came before hello");
    }
    let err = Error::new(
        Code::Limit,
        format!("a frame of {len} bytes is over the limit of {MAX_FRAME_BYTES} bytes"),
    );
    conn.fail(None, &err);
    true
}

/// Tells a TCP client it is not authenticated; the connection then closes.
fn unauthorized(conn: &Conn, id: Option<u64>, why: &str) -> bool {
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
