//! A TCP proxy in front of one etcd member that loses the reply to one
//! request: the request reaches the member, its reply never comes back, and
//! the connection is cut, as when a member dies or the network breaks in
//! the middle of a call.
//!
//! It reads the client's HTTP/2 frames one at a time and forwards them.
//! Once `arm`ed with a needle, the first DATA frame (a gRPC request, or one
//! message of a stream) whose payload holds the needle trips it: from then
//! on nothing more comes back from the member on that connection, the frame
//! is forwarded, `tripped` returns, and the connection is closed both ways
//! when the test calls `cut` (after it has seen the request take effect).
//! New connections are forwarded as usual.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The HTTP/2 client connection preface, before the first frame.
const PREFACE: usize = 24;
/// The type of an HTTP/2 DATA frame.
const DATA: u8 = 0;

/// The proxy; stops when dropped.
pub struct LostReply {
    /// `HOST:PORT` to reach the member through the proxy.
    pub addr: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

struct Shared {
    /// The needle of the armed trip, until a request holding it passes.
    needle: Mutex<Option<Vec<u8>>>,
    /// How many requests tripped it so far.
    trips: watch::Sender<u32>,
    /// How many trips the test has cut so far.
    cuts: watch::Sender<u32>,
}

impl LostReply {
    /// Starts a proxy in front of `member` (`HOST:PORT`).
    pub async fn start(member: &str) -> LostReply {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let shared = Arc::new(Shared {
            needle: Mutex::new(None),
            trips: watch::channel(0).0,
            cuts: watch::channel(0).0,
        });
        let member = member.to_string();
        let serving = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                tokio::spawn(connection(inbound, member.clone(), serving.clone()));
            }
        });
        LostReply { addr, shared, task }
    }

    /// Loses the reply to the next request whose payload holds `needle`.
    pub fn arm(&self, needle: impl Into<Vec<u8>>) {
        *self.shared.needle.lock().unwrap() = Some(needle.into());
    }

    /// How many requests had their replies lost so far.
    pub fn trips(&self) -> u32 {
        *self.shared.trips.borrow()
    }

    /// Waits until the armed request has been forwarded (its reply held).
    pub async fn tripped(&self) {
        let want = self.shared.cuts.borrow().to_owned() + 1;
        let mut trips = self.shared.trips.subscribe();
        tokio::time::timeout(Duration::from_secs(20), trips.wait_for(|n| *n >= want))
            .await
            .expect("no request holding the needle came through the proxy within 20 s")
            .unwrap();
    }

    /// Closes the connection whose reply is held, both ways.
    pub fn cut(&self) {
        self.shared.cuts.send_modify(|n| *n += 1);
    }
}

impl Drop for LostReply {
    fn drop(&mut self) {
        self.task.abort();
        self.shared.cuts.send_modify(|n| *n += 1000);
    }
}

/// Forwards one connection until a trip on it is cut, or either side ends.
async fn connection(inbound: TcpStream, member: String, shared: Arc<Shared>) {
    let Ok(outbound) = TcpStream::connect(&member).await else {
        return;
    };
    let (client_in, client_out) = inbound.into_split();
    let (member_in, member_out) = outbound.into_split();
    let muted = watch::channel(false).0;
    tokio::select! {
        _ = requests(client_in, member_out, &shared, &muted) => {}
        _ = replies(member_in, client_out, muted.subscribe()) => {}
    }
    // Both halves of both sockets drop here: the connection closes.
}

/// Client to member, frame by frame, until a trip is cut.
async fn requests(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    shared: &Shared,
    muted: &watch::Sender<bool>,
) -> std::io::Result<()> {
    let mut preface = [0u8; PREFACE];
    from.read_exact(&mut preface).await?;
    to.write_all(&preface).await?;
    loop {
        let mut head = [0u8; 9];
        from.read_exact(&mut head).await?;
        let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        let mut payload = vec![0u8; len];
        from.read_exact(&mut payload).await?;
        let trip = head[3] == DATA && shared.takes(&payload);
        if trip {
            // Muted before the request goes: no byte of its reply returns.
            muted.send_replace(true);
        }
        to.write_all(&head).await?;
        to.write_all(&payload).await?;
        if trip {
            let mut trips = 0;
            shared.trips.send_modify(|n| {
                *n += 1;
                trips = *n;
            });
            let mut cuts = shared.cuts.subscribe();
            let _ = cuts.wait_for(|n| *n >= trips).await;
            return Ok(());
        }
    }
}

/// Member to client, until muted (then read and dropped).
async fn replies(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    muted: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        if !*muted.borrow() {
            to.write_all(&buf[..n]).await?;
        }
    }
}

impl Shared {
    /// Whether `payload` holds the armed needle; disarms if so.
    fn takes(&self, payload: &[u8]) -> bool {
        let mut needle = self.needle.lock().unwrap();
        let holds = needle
            .as_deref()
            .is_some_and(|n| payload.windows(n.len()).any(|w| w == n));
        if holds {
            *needle = None;
        }
        holds
    }
}
