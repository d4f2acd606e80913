//! One connection to a server: the greeting, the outbox of lines to write
//! and its writer task, a reader task that routes replies to their callers,
//! `lost` events to the lease table and `leader` events to observers, and
//! the map of requests waiting for replies.

use super::address::Address;
use super::connect_options::ConnectOptions;
use super::table::{Carrier, LeaseTerms, RemoteLeases};
use crate::election::pushed::{Route, Told};
use crate::error::{Code, Error, Result};
use crate::vocab::Grant;
use crate::watch::{Pushed, Sink};
use crate::wire::{Event, FrameRead, FrameReader, Op, Reply, RequestFrame, ServerFrame, VERSION};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{oneshot, Notify};
use tokio::task::AbortHandle;

/// The longest frame the client reads: status replies may be long.
const MAX_SERVER_FRAME: usize = 64 * 1024 * 1024;

/// A reply, with the lease it granted already recorded in the table, or
/// the observer it started already routed (by its request id).
pub(crate) struct Answer {
    pub reply: Reply,
    pub grant: Option<Grant>,
    pub observing: Option<u64>,
}

struct Pending {
    tx: oneshot::Sender<Result<Answer>>,
    terms: Option<LeaseTerms>,
    /// For an `observe` or a `watch`: where its changes go once it is
    /// answered.
    route: Option<Routed>,
}

/// Where the pushed changes of an `observe` or a `watch` go.
enum Routed {
    /// An observer of the election of this name.
    Observer(Arc<str>, Route),
    /// A watch.
    Watch(Sink),
}

impl Routed {
    /// Ends what it feeds with `reason`.
    fn end(&self, reason: Error) {
        match self {
            Routed::Observer(_, route) => route.end(reason),
            Routed::Watch(sink) => sink.end(reason),
        }
    }
}

/// How many bytes may wait to be written before a one-way message is
/// dropped rather than queued ([`Link::send_oneway`]).
const MAX_ONEWAY_QUEUED: usize = 1024 * 1024;

/// The lines waiting to be written, and the socket's writing half. A line
/// goes in whole, under the lock, and leaves only as the socket takes its
/// bytes: whoever writes (a caller at once, or the writer task) writes from
/// here, so no caller's future, dropped at any point, can cut a line.
struct Outbox {
    writer: Writer,
    pending: Vec<u8>,
    /// How many bytes of `pending` the socket took.
    written: usize,
    /// Written but not flushed yet.
    unflushed: bool,
    /// Writing failed: the connection is broken; lines are dropped.
    failed: bool,
}

impl Outbox {
    /// Nothing waits to be written or flushed.
    fn idle(&self) -> bool {
        self.pending.len() == self.written && !self.unflushed
    }

    /// Writes what waits as far as the socket takes it; ready once all is
    /// written and flushed. When pending, `cx` is woken when the socket has
    /// room again.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while self.written < self.pending.len() {
            match Pin::new(&mut self.writer).poll_write(cx, &self.pending[self.written..]) {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()))
                }
                Poll::Ready(Ok(n)) => {
                    self.written += n;
                    self.unflushed = true;
                }
                Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    if self.written > self.pending.len() / 2 {
                        self.pending.drain(..self.written);
                        self.written = 0;
                    }
                    return Poll::Pending;
                }
            }
        }
        self.pending.clear();
        self.written = 0;
        if self.unflushed {
            std::task::ready!(Pin::new(&mut self.writer).poll_flush(cx))?;
            self.unflushed = false;
        }
        Poll::Ready(Ok(()))
    }
}

#[derive(Default)]
struct Calls {
    broken: Option<Error>,
    waiting: HashMap<u64, Pending>,
    /// The observers of elections and the watches, by the id of their
    /// `observe` or `watch`.
    observers: HashMap<u64, Routed>,
}

/// The part of a connection its tasks, renewers and callers share.
pub(crate) struct Link {
    pub generation: u64,
    pub address: Address,
    pub table: Arc<RemoteLeases<Link>>,
    /// Every line goes out through it, in the order it was put in (a
    /// give-up is never overtaken by a later request).
    outbox: Mutex<Outbox>,
    /// Wakes the writer task: lines wait that the socket did not take at
    /// once.
    more: Notify,
    next_id: AtomicU64,
    calls: Mutex<Calls>,
    /// The server said in its `hello` that it takes `watch_pause` and
    /// `watch_resume`.
    pub pauses: bool,
}

impl Carrier for Link {
    fn generation(&self) -> u64 {
        self.generation
    }

    fn release_nowait(&self, wire: &str) {
        Link::release_nowait(self, wire);
    }
}

/// An open connection; dropping it closes the socket, and the server then
/// releases its leases.
pub(crate) struct OpenLink {
    pub link: Arc<Link>,
    tasks: [AbortHandle; 2],
}

impl Drop for OpenLink {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.link.broke(Error::new(
            Code::Closed,
            format!("the connection to {} was closed", self.link.address),
        ));
    }
}

trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

async fn open_stream(address: &Address) -> Result<Box<dyn Stream>> {
    let unreachable = |e: std::io::Error| {
        Error::new(
            Code::Unavailable,
            format!("cannot reach tinystore server at {address}: {e}"),
        )
    };
    Ok(match address {
        Address::Unix(path) => Box::new(crate::os::local_socket::connect(path, unreachable).await?),
        Address::Tcp(hostport) => {
            let stream = tokio::net::TcpStream::connect(hostport)
                .await
                .map_err(unreachable)?;
            stream.set_nodelay(true).map_err(unreachable)?;
            Box::new(stream)
        }
        Address::Tls(target) => Box::new(super::tls::connect(target, &address.to_string()).await?),
    })
}

impl OpenLink {
    /// Connects and says hello; `unavailable` when the server cannot be
    /// reached, its error (e.g. `unauthorized`) when it refuses.
    pub(crate) async fn open(
        address: &Address,
        options: &ConnectOptions,
        generation: u64,
        table: Arc<RemoteLeases<Link>>,
    ) -> Result<OpenLink> {
        let greeting = greet(address, options);
        let (reader, writer, pauses) = tokio::time::timeout(options.timeout, greeting)
            .await
            .map_err(|_| {
                Error::new(
                    Code::Unavailable,
                    format!(
                        "tinystore server at {address} did not answer within {:?}",
                        options.timeout
                    ),
                )
            })??;
        let link = Arc::new(Link {
            generation,
            address: address.clone(),
            table,
            outbox: Mutex::new(Outbox {
                writer,
                pending: Vec::new(),
                written: 0,
                unflushed: false,
                failed: false,
            }),
            more: Notify::new(),
            next_id: AtomicU64::new(1),
            calls: Mutex::new(Calls::default()),
            pauses,
        });
        let writing = tokio::spawn(write_lines(link.clone())).abort_handle();
        let reading = tokio::spawn(read_replies(reader, link.clone())).abort_handle();
        Ok(OpenLink {
            link,
            tasks: [writing, reading],
        })
    }
}

type Writer = tokio::io::WriteHalf<Box<dyn Stream>>;
/// The connection's halves, and whether the server takes `watch_pause`.
type Halves = (
    BufReader<tokio::io::ReadHalf<Box<dyn Stream>>>,
    Writer,
    bool,
);

async fn greet(address: &Address, options: &ConnectOptions) -> Result<Halves> {
    // On TLS, the server may refuse this client's certificate only now.
    let unreachable = |e: std::io::Error| super::tls::failed(&address.to_string(), e);
    let stream = open_stream(address).await?;
    let (read, mut write) = tokio::io::split(stream);
    let mut reader = BufReader::new(read);
    let hello = RequestFrame {
        id: None,
        op: Op::Hello {
            version: VERSION,
            token: options.token.clone(),
        },
    };
    write
        .write_all((hello.encode() + "\n").as_bytes())
        .await
        .map_err(unreachable)?;
    let mut frames = FrameReader::new(MAX_SERVER_FRAME);
    let hello = match next_frame(&mut frames, &mut reader)
        .await
        .map_err(unreachable)?
    {
        Some(ServerFrame::Reply(reply)) => reply.into_result()?,
        _ => {
            return Err(Error::new(
                Code::Unavailable,
                format!("tinystore server at {address} closed the connection during hello"),
            ))
        }
    };
    Ok((reader, write, hello.watch_pause == Some(true)))
}

async fn next_frame<R: AsyncBufRead + Unpin>(
    frames: &mut FrameReader,
    reader: &mut R,
) -> std::io::Result<Option<ServerFrame>> {
    loop {
        match frames.next(reader).await? {
            FrameRead::End => return Ok(None),
            FrameRead::TooLong(_) => continue,
            FrameRead::Line(line) => match ServerFrame::decode(&line) {
                Ok(frame) => return Ok(Some(frame)),
                Err(_) => continue,
            },
        }
    }
}

/// Writes the lines the socket did not take at once, as it has room.
async fn write_lines(link: Arc<Link>) {
    loop {
        link.more.notified().await;
        let drained = std::future::poll_fn(|cx| link.outbox().poll_drain(cx)).await;
        if let Err(e) = drained {
            link.write_failed(e);
            return;
        }
    }
}

async fn read_replies<R: AsyncBufRead + Unpin>(mut reader: R, link: Arc<Link>) {
    let mut frames = FrameReader::new(MAX_SERVER_FRAME);
    let why = loop {
        match next_frame(&mut frames, &mut reader).await {
            Ok(Some(ServerFrame::Reply(reply))) => link.on_reply(reply),
            Ok(Some(ServerFrame::Event(event))) => link.on_event(event),
            Ok(None) => break "the server closed it".to_string(),
            Err(e) => break e.to_string(),
        }
    };
    link.broke(Error::new(
        Code::Unavailable,
        format!("the connection to {} broke: {why}", link.address),
    ));
}

impl Link {
    fn calls(&self) -> MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn outbox(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts `line` in the outbox behind every line before it, whole, and
    /// writes what the socket takes now when nothing waited before it
    /// (never waits); the writer task writes the rest. Dropped when
    /// `oneway` and [`MAX_ONEWAY_QUEUED`] bytes already wait.
    fn put(&self, line: &str, oneway: bool) {
        let mut outbox = self.outbox();
        let waiting = outbox.pending.len() - outbox.written;
        if outbox.failed || (oneway && waiting >= MAX_ONEWAY_QUEUED) {
            return;
        }
        let idle = outbox.idle();
        outbox.pending.extend_from_slice(line.as_bytes());
        if !idle {
            // The writer task has the rest in hand.
            return;
        }
        match outbox.poll_drain(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Ok(())) => {}
            Poll::Pending => {
                drop(outbox);
                self.more.notify_one();
            }
            Poll::Ready(Err(e)) => {
                drop(outbox);
                self.write_failed(e);
            }
        }
    }

    /// Writing failed: the connection is broken.
    fn write_failed(&self, e: std::io::Error) {
        {
            let mut outbox = self.outbox();
            outbox.failed = true;
            outbox.pending = Vec::new();
            outbox.written = 0;
        }
        self.broke(Error::new(
            Code::Unavailable,
            format!("the connection to {} broke: {e}", self.address),
        ));
    }

    /// Whether the connection still works.
    pub(crate) fn is_alive(&self) -> bool {
        self.calls().broken.is_none()
    }

    /// Fails every waiting call, ends every observer and loses every lease
    /// of this connection.
    pub(crate) fn broke(&self, err: Error) {
        let (waiting, observers) = {
            let mut calls = self.calls();
            if calls.broken.is_none() {
                calls.broken = Some(err.clone());
            }
            (
                std::mem::take(&mut calls.waiting),
                std::mem::take(&mut calls.observers),
            )
        };
        for (_, pending) in waiting {
            let _ = pending.tx.send(Err(err.clone()));
        }
        for (_, routed) in observers {
            routed.end(err.clone());
        }
        let lost = Error::new(
            Code::LeaseLost,
            format!("the lease was lost with its connection: {}", err.message()),
        );
        self.table.lost_generation(self.generation, lost);
    }

    fn on_reply(self: &Arc<Self>, reply: Reply) {
        let pending = reply.id.and_then(|id| self.calls().waiting.remove(&id));
        let Some(pending) = pending else {
            // The caller gave up: a lease granted meanwhile is not wanted.
            if let (true, Some(lease)) = (reply.ok, &reply.lease) {
                self.release_nowait(lease);
            }
            return;
        };
        let observing = match (&reply, pending.route) {
            (Reply { ok: true, id, .. }, Some(route)) => {
                let id = id.unwrap_or_default();
                self.calls().observers.insert(id, route);
                Some(id)
            }
            _ => None,
        };
        let grant = match (&reply, pending.terms) {
            (
                Reply {
                    ok: true,
                    lease: Some(lease),
                    ..
                },
                Some(terms),
            ) => Some(self.table.record(self, lease, reply.fence, terms)),
            _ => None,
        };
        let answer = reply.into_result().map(|reply| Answer {
            reply,
            grant,
            observing,
        });
        if let Err(Ok(unwanted)) = pending.tx.send(answer) {
            self.unwanted(unwanted);
        }
    }

    /// Undoes an answer its caller no longer wants: releases the lease it
    /// granted, stops the observer it started.
    fn unwanted(&self, answer: Answer) {
        if let Some(grant) = answer.grant {
            self.table.forget_and_release(grant.id);
        }
        if let Some(id) = answer.observing {
            self.stop_observing(id);
        }
    }

    /// Routes a pushed event: a lease's end to the table, a change of
    /// leader or an observer's end to its observer.
    fn on_event(&self, event: Event) {
        match event {
            Event::Lost {
                lease,
                code,
                message,
            } => {
                let reason = Error::new(Code::parse(&code).unwrap_or(Code::LeaseLost), message);
                self.table.lost_wire(self.generation, &lease, reason);
            }
            Event::Leader { observe, leader } => {
                let mut calls = self.calls();
                let told = match calls.observers.get(&observe) {
                    Some(Routed::Observer(name, route)) => route.tell(name, leader.map(Into::into)),
                    _ => return,
                };
                if !matches!(told, Told::Taken) {
                    calls.observers.remove(&observe);
                    drop(calls);
                    self.send_nowait(Op::Cancel { target: observe });
                }
            }
            Event::ObserveEnd {
                observe,
                code,
                message,
            } => {
                if let Some(routed) = self.calls().observers.remove(&observe) {
                    let code = Code::parse(&code).unwrap_or(Code::Internal);
                    routed.end(Error::new(code, message));
                }
            }
            Event::Watch(wire) => {
                let watch = wire.watch;
                let mut calls = self.calls();
                let Some(Routed::Watch(sink)) = calls.observers.get(&watch) else {
                    return;
                };
                let pushed = match wire.event() {
                    Ok(event) => sink.put(event),
                    Err(err) => {
                        sink.end(err);
                        Pushed::Gone
                    }
                };
                match pushed {
                    Pushed::Taken => {}
                    // The reader has no room: the server is asked to stop
                    // sending (it was told it may, or the sink would not
                    // ask); what is on its way is dropped and counted.
                    Pushed::Pause => {
                        let pauser = sink.pauser();
                        drop(calls);
                        pauser.pause(|| self.send_nowait(Op::WatchPause { watch }));
                    }
                    Pushed::Gone => {
                        calls.observers.remove(&watch);
                        drop(calls);
                        self.send_nowait(Op::Cancel { target: watch });
                    }
                }
            }
            Event::WatchEnd {
                watch,
                code,
                message,
            } => {
                if let Some(routed) = self.calls().observers.remove(&watch) {
                    let code = Code::parse(&code).unwrap_or(Code::Internal);
                    routed.end(Error::new(code, message));
                }
            }
        }
    }

    /// Stops the observer of request `id`: forgets its route, which ends
    /// it, and tells the server.
    pub(crate) fn stop_observing(&self, id: u64) {
        let route = self.calls().observers.remove(&id);
        if route.is_some() {
            self.send_nowait(Op::Cancel { target: id });
        }
    }

    /// Asks the server to go on with the events of the watch of request
    /// `id`, paused when its reader had no room, if it is still watched.
    pub(crate) fn resume_watch(&self, id: u64) {
        if self.calls().observers.contains_key(&id) {
            self.send_nowait(Op::WatchResume { watch: id });
        }
    }

    /// Sends a request whose reply nobody awaits.
    pub(crate) fn send_nowait(&self, op: Op) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let frame = RequestFrame { id: Some(id), op };
        self.put(&(frame.encode() + "\n"), false);
    }

    /// Sends a one-way message: no id, no reply. Dropped when the
    /// connection is broken or [`MAX_ONEWAY_QUEUED`] bytes already wait to
    /// be written (a server that stopped reading); never waits.
    pub(crate) fn send_oneway(&self, op: Op) {
        if !self.is_alive() {
            return;
        }
        let frame = RequestFrame { id: None, op };
        self.put(&(frame.encode() + "\n"), true);
    }

    /// Releases a lease by its wire id, not waiting for the reply.
    pub(crate) fn release_nowait(&self, lease: &str) {
        self.send_nowait(Op::Release {
            lease: lease.to_string(),
        });
    }

    /// Sends a request and waits for its reply; a reply with `ok: false`
    /// is its error. `terms` says how to keep a lease it grants. Dropping
    /// the future cancels a waiting acquire and releases a lease granted
    /// as it was dropped.
    pub(crate) async fn call(
        self: &Arc<Self>,
        op: Op,
        terms: Option<LeaseTerms>,
    ) -> Result<Answer> {
        self.call_routed(op, terms, None).await
    }

    /// [`Link::call`] for an `observe` of election `name`: its changes go to
    /// `route` from its reply on. Dropping the future stops the observer.
    pub(crate) async fn observe(self: &Arc<Self>, name: &str, route: Route) -> Result<Answer> {
        let op = Op::Observe {
            name: name.to_string(),
        };
        let routed = Routed::Observer(name.into(), route);
        self.call_routed(op, None, Some(routed)).await
    }

    /// [`Link::call`] for a `watch` (`op`): its events go to `sink` from
    /// its reply on. Dropping the future stops the watch.
    pub(crate) async fn watch(self: &Arc<Self>, op: Op, sink: Sink) -> Result<Answer> {
        self.call_routed(op, None, Some(Routed::Watch(sink))).await
    }

    async fn call_routed(
        self: &Arc<Self>,
        op: Op,
        terms: Option<LeaseTerms>,
        route: Option<Routed>,
    ) -> Result<Answer> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut calls = self.calls();
            if let Some(err) = &calls.broken {
                return Err(err.clone());
            }
            calls.waiting.insert(id, Pending { tx, terms, route });
        }
        // A dropped call that waits on the server, or that would start an
        // observer or a watch there, is called off.
        let cancels = matches!(
            op,
            Op::Acquire { .. } | Op::Campaign { .. } | Op::Observe { .. } | Op::Watch { .. }
        );
        let line = RequestFrame { id: Some(id), op }.encode() + "\n";
        let call = Call {
            link: self.clone(),
            id,
            rx,
            cancels,
            done: false,
        };
        // Whole or not at all: the line is in the outbox before this
        // future can be dropped, and a dropped call's reply is read and
        // thrown away by its id.
        self.put(&line, false);
        call.await
    }
}

/// A call waiting for its reply; see [`Link::call`] for what dropping does.
struct Call {
    link: Arc<Link>,
    id: u64,
    rx: oneshot::Receiver<Result<Answer>>,
    cancels: bool,
    done: bool,
}

impl Future for Call {
    type Output = Result<Answer>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<Answer>> {
        match Pin::new(&mut self.rx).poll(cx) {
            Poll::Ready(answer) => {
                self.done = true;
                Poll::Ready(answer.unwrap_or_else(|_| {
                    Err(Error::new(Code::Unavailable, "the connection went away"))
                }))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let was_waiting = self.link.calls().waiting.remove(&self.id).is_some();
        if was_waiting {
            if self.cancels {
                self.link.send_nowait(Op::Cancel { target: self.id });
            }
            return;
        }
        self.rx.close();
        if let Ok(Ok(answer)) = self.rx.try_recv() {
            self.link.unwanted(answer);
        }
    }
}
