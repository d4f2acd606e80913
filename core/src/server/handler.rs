//! One connection's task, the [`Handler`]: the greeting (greeting.rs), then
//! requests read one line at a time, each answered by ops.rs; everything
//! the client is told goes out through its writing half (outgoing.rs).

use super::connection::{Connection, Transport};
use super::gate::Pass;
use super::greeting::{self, Greeting};
use super::metrics::Metrics;
use super::observers::Change;
use super::ops::{finish_acquire, handle, tell_lost};
use super::outgoing::Outgoing;
use super::shutdown::Shutdown;
use super::waits::WaitFor;
use super::watch::tell_seen;
use crate::embedded::Embedded;
use crate::error::{Code, Error, Result};
use crate::vocab::{EngineGrant, LeaseId};
use crate::wire::{
    decode_request, FrameRead, FrameReader, Op, MAX_FRAME_BYTES, MAX_STRANGERS, STRANGER_GRACE,
};
use std::future::poll_fn;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, BufReader, ReadHalf, WriteHalf};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How long a connection waits, once shutdown began, for the engine's last
/// words (each lease's end, each wait's failure): they come as soon as the
/// engine closes, which a server dropped without shutting down never does.
const LAST_WORDS_WITHIN: Duration = Duration::from_secs(1);

/// How long a closing connection waits for its last lines to be written.
const FINISH_WITHIN: Duration = Duration::from_secs(2);

/// The most changes of observers and watches told in one write.
const CHANGES_PER_WRITE: usize = 64;

/// What woke a connection's task.
enum Wake {
    /// The client sent a frame, or left.
    Frame(std::io::Result<FrameRead>),
    /// A line for the client was queued while the task waited.
    Queued(String),
    /// A waiting acquire (or campaign) was granted or gave up.
    Waited(WaitFor, Result<EngineGrant>),
    /// The engine told that one of the connection's leases ended.
    Lost(LeaseId, Error),
    /// An observer of an election saw a change.
    Changed(Change),
    /// The server began to shut down.
    Shutdown,
    /// The client did not say hello in time.
    HelloLate,
    /// The gate closed this stranger to make room for a newer one.
    Evicted,
}

/// What the task does after an event.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Waits for the next event.
    Serve,
    /// Closes the connection.
    Close,
    /// Tells the client what the closing engine tells, then closes.
    TellTheClose,
}

/// One connection's task, as mini-redis's `Handler`: it owns the
/// connection's reading and writing halves and its channels, waits in one
/// place ([`Handler::next_wake`]) for whatever comes next, and answers each
/// kind of event with one method. It reads requests and writes every line
/// the client gets: lines queued while it handles an event go out in the
/// same write, and those queued later (a granted wait, a `lost` event, an
/// observer's change, a finished backup) wake it.
pub(super) struct Handler<S> {
    /// The connection's shared half, which ops.rs answers requests on.
    conn: Arc<Connection>,
    reader: BufReader<ReadHalf<S>>,
    frames: FrameReader,
    out: Outgoing<WriteHalf<S>>,
    /// The ends of the connection's leases, as the engine tells them.
    lost: mpsc::UnboundedReceiver<(LeaseId, Error)>,
    /// The connection's place at the gate, kept while it is served.
    pass: Pass,
    greeting: Greeting,
    hello_by: Instant,
    shutdown: Shutdown,
}

impl<S: AsyncRead + AsyncWrite + Send + 'static> Handler<S> {
    /// The task of a new connection over `stream`, which holds its place
    /// at the gate (`pass`) while it is served.
    pub(super) fn new(
        stream: S,
        transport: Transport,
        pass: Pass,
        embedded: Arc<Embedded>,
        metrics: Arc<Metrics>,
        shutdown: Shutdown,
    ) -> Handler<S> {
        let (read, write) = tokio::io::split(stream);
        let frames = match pass.frame_limit() {
            Some(limit) => FrameReader::stopping(limit),
            None => FrameReader::new(MAX_FRAME_BYTES),
        };
        let (conn, queued, lost) = Connection::new(embedded, transport, metrics);
        Handler {
            conn,
            reader: BufReader::new(read),
            frames,
            out: Outgoing::new(write, queued),
            lost,
            hello_by: Instant::now() + pass.hello_timeout(),
            pass,
            greeting: Greeting::Waiting,
            shutdown,
        }
    }

    /// Serves the connection until the client leaves or the server shuts
    /// down; returns how many waits and leases it gave up as it closed.
    pub(super) async fn serve(mut self) -> usize {
        if self.run().await == Next::TellTheClose {
            let _ = tokio::time::timeout(LAST_WORDS_WITHIN, self.tell_the_close()).await;
        }
        self.close().await
    }

    /// Serves events until the connection closes or shutdown begins (then
    /// [`Next::TellTheClose`]). Whatever an event queued is written before
    /// the next is read, and flushed once no more requests are buffered.
    async fn run(&mut self) -> Next {
        loop {
            let wake = self.next_wake().await;
            let next = self.on(wake).await;
            if self.out.write_queued(&self.conn).await.is_err() {
                return Next::Close;
            }
            if next != Next::Serve {
                return next;
            }
            if self.reader.buffer().is_empty() && self.out.flush().await.is_err() {
                return Next::Close;
            }
        }
    }

    /// Waits for the next event of any kind.
    async fn next_wake(&mut self) -> Wake {
        let greeted = self.greeting == Greeting::Greeted;
        let conn = &self.conn;
        tokio::select! {
            frame = self.frames.next(&mut self.reader) => Wake::Frame(frame),
            Some(line) = self.out.next_queued() => Wake::Queued(line),
            (what, outcome) = poll_fn(|cx| conn.waits().poll_next(cx)) => {
                Wake::Waited(what, outcome)
            }
            Some((lease, reason)) = self.lost.recv() => Wake::Lost(lease, reason),
            change = poll_fn(|cx| conn.observers().poll_next(cx)) => Wake::Changed(change),
            _ = self.shutdown.recv() => Wake::Shutdown,
            _ = tokio::time::sleep_until(self.hello_by), if !greeted => Wake::HelloLate,
            _ = self.pass.evicted(), if !greeted => Wake::Evicted,
        }
    }

    /// Answers one event; lines it queues collect in the outbox until
    /// [`Outgoing::write_queued`].
    async fn on(&mut self, wake: Wake) -> Next {
        self.conn.outbox().serving = true;
        match wake {
            Wake::Frame(Ok(FrameRead::Line(line))) => self.on_line(&line),
            Wake::Frame(Ok(FrameRead::TooLong(len))) => self.on_too_long(len),
            Wake::Frame(Ok(FrameRead::End) | Err(_)) => Next::Close,
            Wake::Queued(line) => self.on_queued(&line).await,
            Wake::Waited((id, what), outcome) => {
                finish_acquire(&self.conn, id, &what, outcome);
                Next::Serve
            }
            Wake::Lost(lease, reason) => {
                tell_lost(&self.conn, &super::leases::wire_id(lease), &reason);
                Next::Serve
            }
            Wake::Changed((id, change)) => {
                tell_seen(&self.conn, id, change);
                // The changes ready now go out in the same write: a busy
                // watch is told in batches, not with a write per event.
                for _ in 1..CHANGES_PER_WRITE {
                    let Some((id, change)) = self.conn.observers().ready() else {
                        break;
                    };
                    tell_seen(&self.conn, id, change);
                }
                Next::Serve
            }
            Wake::Shutdown => Next::TellTheClose,
            Wake::HelloLate => self.on_hello_late(),
            Wake::Evicted => self.on_evicted(),
        }
    }

    /// A request: before hello only `hello` is served; after it, ops.rs
    /// answers every request.
    fn on_line(&mut self, line: &[u8]) -> Next {
        let greeted = self.greeting == Greeting::Greeted;
        let conn = &self.conn;
        let frame = match decode_request(line) {
            Ok(frame) => frame,
            Err((id, err)) if !greeted => return self.greeted(greeting::undecoded(conn, id, &err)),
            Err((id, err)) => {
                conn.fail(id, &err);
                return Next::Serve;
            }
        };
        let id = frame.id;
        match (frame.op, greeted) {
            (Op::Hello { version, token }, false) => {
                let greeting = greeting::hello(conn, id, version, token, &mut self.pass);
                self.greeted(greeting)
            }
            (Op::Hello { .. }, true) => {
                conn.fail(id, &Error::new(Code::Invalid, "hello was already said"));
                Next::Serve
            }
            (op, false) => self.greeted(greeting::before_hello(conn, id, op.name())),
            (op, true) => {
                let (name, started) = (op.name(), std::time::Instant::now());
                handle(conn, id, op);
                conn.metrics.request(name, started.elapsed());
                Next::Serve
            }
        }
    }

    /// A frame over the limit (skipped, or before hello on TCP, refused).
    fn on_too_long(&mut self, len: usize) -> Next {
        let greeted = self.greeting == Greeting::Greeted;
        self.greeted(greeting::too_long(&self.conn, len, greeted))
    }

    /// A line queued while the task waited: written now.
    async fn on_queued(&mut self, line: &str) -> Next {
        match self.out.write_line(line).await {
            Ok(()) => Next::Serve,
            Err(_) => Next::Close,
        }
    }

    fn on_hello_late(&mut self) -> Next {
        let why = format!("no hello within {:?}", self.pass.hello_timeout());
        self.greeted(greeting::unauthorized(&self.conn, None, &why))
    }

    fn on_evicted(&mut self) -> Next {
        let why = format!(
            "no hello within {STRANGER_GRACE:?}, while {MAX_STRANGERS} connections wait to \
             authenticate and more come: the one waiting longest is closed"
        );
        self.greeted(greeting::unauthorized(&self.conn, None, &why))
    }

    /// Records where the greeting stands; once greeted, frames may be as
    /// long as any client's.
    fn greeted(&mut self, greeting: Greeting) -> Next {
        if greeting == Greeting::Refused {
            return Next::Close;
        }
        if greeting == Greeting::Greeted && self.greeting != Greeting::Greeted {
            self.frames.relax(MAX_FRAME_BYTES);
        }
        self.greeting = greeting;
        Next::Serve
    }

    /// Once shutdown began: tells the client what the closing engine tells
    /// (each lease's end, each wait's failure, each observer's end), reading
    /// no more requests. It ends when nothing more can come: the lost
    /// channel closed (the engine dropped every lease record and waiting
    /// request that held a sender, and the connection its own) and no wait
    /// or observer is left.
    async fn tell_the_close(&mut self) {
        self.conn.close_lost_channel();
        // A paused watch would never take its end from the store.
        self.conn.observers().resume_all();
        let mut lost_open = true;
        while lost_open || !self.conn.state().is_empty() {
            let conn = &self.conn;
            let wake = tokio::select! {
                told = self.lost.recv(), if lost_open => match told {
                    Some((lease, reason)) => Wake::Lost(lease, reason),
                    None => {
                        lost_open = false;
                        continue;
                    }
                },
                Some(line) = self.out.next_queued() => Wake::Queued(line),
                (what, outcome) = poll_fn(|cx| conn.waits().poll_next(cx)) => {
                    Wake::Waited(what, outcome)
                }
                change = poll_fn(|cx| conn.observers().poll_next(cx)) => Wake::Changed(change),
                else => return,
            };
            let next = self.on(wake).await;
            if self.out.write_queued(&self.conn).await.is_err() || next == Next::Close {
                return;
            }
        }
    }

    /// Gives up the connection's waits and leases, then writes its last
    /// lines: every one queued until the connection's shared half is gone
    /// (a backup it started may still answer). Returns how many waits and
    /// leases it gave up.
    async fn close(self) -> usize {
        let Handler { conn, mut out, .. } = self;
        let given_up = conn.close().await;
        drop(conn);
        let _ = tokio::time::timeout(FINISH_WITHIN, out.finish()).await;
        given_up
    }
}
