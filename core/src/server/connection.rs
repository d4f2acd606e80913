//! One connection's shared half: its leases, its waits and its queue of
//! lines for the client, which the operations (ops.rs) and the
//! connection's task (handler.rs) both use.

use super::leases::ConnectionLeases;
use super::metrics::Metrics;
use super::observers::Observers;
use super::waits::Waits;
use crate::embedded::Embedded;
use crate::engine::Engine;
use crate::error::Error;
use crate::vocab::LeaseId;
use crate::wire::{Event, Reply, ServerFrame};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;

/// How a connection reached the server.
#[derive(Clone)]
pub(crate) enum Transport {
    /// The store's Unix socket: the file mode is the access control.
    Unix,
    /// TCP: `hello` must carry this token before anything is served.
    Tcp(Arc<str>),
    /// TLS on TCP: `hello` must carry this token, or `None` when the client
    /// gave a certificate the server verified (mutual TLS).
    Tls(Option<Arc<str>>),
}

impl Transport {
    /// The token `hello` must carry, if any.
    pub(super) fn token(&self) -> Option<&str> {
        match self {
            Transport::Tcp(token) => Some(token),
            Transport::Tls(token) => token.as_deref(),
            Transport::Unix => None,
        }
    }

    /// `unix`, `tcp` or `tls`, as logs and metrics name it.
    pub(super) fn label(&self) -> &'static str {
        match self {
            Transport::Unix => "unix",
            Transport::Tcp(_) => "tcp",
            Transport::Tls(_) => "tls",
        }
    }
}

/// One connection's shared half: what its request handlers, acquire tasks
/// and lease watchers use.
pub(super) struct Connection {
    pub engine: Arc<Engine>,
    pub embedded: Arc<Embedded>,
    pub transport: Transport,
    /// The server's metrics, which count this connection's requests.
    pub metrics: Arc<Metrics>,
    out: mpsc::UnboundedSender<String>,
    outbox: Mutex<Outbox>,
    state: Mutex<ConnectionLeases>,
    waits: Mutex<Waits>,
    observers: Mutex<Observers>,
    /// Where the engine tells this connection that one of its leases ended;
    /// `None` once the connection's task stopped taking requests.
    lost_to: Mutex<Option<LostSender>>,
}

/// The sending end of a connection's lost channel.
type LostSender = mpsc::UnboundedSender<(LeaseId, Error)>;

impl Connection {
    /// A new connection to `embedded`'s engine, with the receiving ends of
    /// its two channels: lines for the client queued while its task was
    /// idle, and the ends of its leases the engine tells.
    pub(super) fn new(
        embedded: Arc<Embedded>,
        transport: Transport,
        metrics: Arc<Metrics>,
    ) -> (
        Arc<Connection>,
        mpsc::UnboundedReceiver<String>,
        mpsc::UnboundedReceiver<(LeaseId, Error)>,
    ) {
        let (out, rx) = mpsc::unbounded_channel();
        let (lost_to, lost) = mpsc::unbounded_channel();
        let conn = Arc::new(Connection {
            engine: embedded.engine().clone(),
            embedded,
            transport,
            metrics,
            out,
            outbox: Mutex::new(Outbox::default()),
            state: Mutex::new(ConnectionLeases::default()),
            waits: Mutex::new(Waits::default()),
            observers: Mutex::new(Observers::default()),
            lost_to: Mutex::new(Some(lost_to)),
        });
        (conn, rx, lost)
    }

    /// Where the engine is to tell this connection that a lease ended: a
    /// sender of its lost channel (one whose channel is closed, once
    /// [`Connection::close_lost_channel`] was called).
    pub(super) fn lost_to(&self) -> LostSender {
        let lost_to = self.lost_to.lock().unwrap_or_else(|p| p.into_inner());
        match &*lost_to {
            Some(sender) => sender.clone(),
            None => mpsc::unbounded_channel().0,
        }
    }

    /// Drops the connection's own sender of its lost channel, which then
    /// closes once the engine has dropped every other (each lease record's
    /// and each waiting request's): after that, no lease's end is to come.
    pub(super) fn close_lost_channel(&self) {
        self.lost_to
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
    }

    /// The connection's leases and waits.
    pub(super) fn state(&self) -> MutexGuard<'_, ConnectionLeases> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection's waiting acquires.
    pub(super) fn waits(&self) -> MutexGuard<'_, Waits> {
        self.waits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection's observers of elections.
    pub(super) fn observers(&self) -> MutexGuard<'_, Observers> {
        self.observers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a frame for the client: while the connection's task is
    /// handling something, into its outbox (it writes that out next, with no
    /// wakeup); otherwise through the channel that wakes it. Both happen
    /// under the outbox's lock, so the task can write the channel's lines
    /// before the outbox's and keep the order frames were queued in.
    pub(super) fn send(&self, frame: ServerFrame) {
        let line = frame.encode();
        let mut outbox = self.outbox();
        if outbox.serving {
            outbox.lines.extend_from_slice(line.as_bytes());
            outbox.lines.push(b'\n');
        } else {
            let _ = self.out.send(line);
        }
    }

    /// The lines queued while the connection's task handles an event.
    pub(super) fn outbox(&self) -> MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a reply.
    pub(super) fn reply(&self, reply: Reply) {
        self.send(ServerFrame::Reply(reply));
    }

    /// Queues an error reply.
    pub(super) fn fail(&self, id: Option<u64>, err: &Error) {
        self.reply(Reply::err(id, err));
    }

    /// Queues a `lost` event.
    pub(super) fn lost(&self, lease: &str, reason: &Error) {
        self.send(ServerFrame::Event(Event::lost(lease, reason)));
    }

    /// Cancels every wait and releases every lease of this connection, in
    /// batches, letting other connections run between them; how many
    /// waits and leases that was.
    pub(super) async fn close(&self) -> usize {
        let waits = std::mem::take(&mut *self.waits());
        let held = self.state().close();
        drop(std::mem::take(&mut *self.observers()));
        let given_up = waits.len() + held.len();
        waits.give_up(&self.engine).await;
        for (n, lease) in held.into_iter().enumerate() {
            self.engine.disconnect(lease);
            if n % 64 == 63 {
                tokio::task::yield_now().await;
            }
        }
        given_up
    }

    /// Whether the client came over TCP, plain or TLS (and so must
    /// authenticate).
    pub(super) fn is_tcp(&self) -> bool {
        !matches!(self.transport, Transport::Unix)
    }
}

/// Lines for the client queued while the connection's task handles an event.
#[derive(Default)]
pub(super) struct Outbox {
    /// Whether the connection's task is handling an event (and so writes
    /// `lines` when it is done).
    pub serving: bool,
    pub lines: Vec<u8>,
}
