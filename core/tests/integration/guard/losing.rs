//! What the lost-answer tests of the guards share: a loopback proxy that
//! loses the server's answer to one request (the server has decided it by
//! then), or plays a plan of such losses and answers of its own, with
//! another writer let in before the connection closes, and the wait for a
//! store's count of refusals.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::RefusedStatus;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What runs between the lost answer and the close of its connection.
pub(crate) type Between = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Nothing in between.
pub(crate) fn nothing() -> Between {
    Box::pin(async {})
}

/// A loopback proxy in front of `upstream` (host:port) that loses the
/// answer to the first request carrying `target` in a chunk it reads: it
/// forwards the request, waits for the answer's first bytes (the server
/// has decided by then), runs `between`, and closes the connection without
/// a byte of that answer. Every other request and answer goes through as
/// it is. Gives the proxy's host:port.
pub(crate) async fn losing_proxy(
    upstream: String,
    target: &'static [u8],
    between: Between,
) -> String {
    planned_proxy(upstream, target, between, vec![None]).await
}

/// A proxy like [`losing_proxy`]'s that plays `plan` on the requests
/// carrying `target`, one step each, in turn: `None` loses the answer;
/// `Some(answer)` keeps the request from the server (read whole) and gives
/// the client `answer` (an HTTP answer's bytes), closing the connection, as
/// a server that refused it would. `between` runs at the plan's last
/// step; requests after it go through.
pub(crate) async fn planned_proxy(
    upstream: String,
    target: &'static [u8],
    between: Between,
    plan: Vec<Option<&'static [u8]>>,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let between = Arc::new(tokio::sync::Mutex::new(Some(between)));
    let steps = Arc::new(Mutex::new(plan.into_iter().collect::<VecDeque<_>>()));
    tokio::spawn(async move {
        while let Ok((mut down, _)) = listener.accept().await {
            let mut up = TcpStream::connect(&upstream).await.unwrap();
            let (between, steps) = (between.clone(), steps.clone());
            tokio::spawn(async move {
                let (mut down_read, down_write) = down.split();
                // Written by the answers, or by the proxy's own answer.
                let down_write = tokio::sync::Mutex::new(down_write);
                let (mut up_read, mut up_write) = up.split();
                let losing = AtomicBool::new(false);
                // Whether the step played on this connection is the last.
                let last = AtomicBool::new(false);
                let run_between = || async {
                    if let Some(writer) = between.lock().await.take() {
                        writer.await;
                    }
                };
                let requests = async {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        let n = down_read.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        let picked = !losing.load(Ordering::SeqCst)
                            && buf[..n].windows(target.len()).any(|w| w == target);
                        let step = if picked {
                            let mut steps = steps.lock().unwrap();
                            steps.pop_front().map(|step| (step, steps.is_empty()))
                        } else {
                            None
                        };
                        if let Some((step, is_last)) = step {
                            last.store(is_last, Ordering::SeqCst);
                            let Some(answer) = step else {
                                losing.store(true, Ordering::SeqCst);
                                if up_write.write_all(&buf[..n]).await.is_err() {
                                    break;
                                }
                                continue;
                            };
                            let mut request = buf[..n].to_vec();
                            while !whole(&request) {
                                let n = down_read.read(&mut buf).await.unwrap_or(0);
                                if n == 0 {
                                    return;
                                }
                                request.extend_from_slice(&buf[..n]);
                            }
                            if is_last {
                                run_between().await;
                            }
                            let mut down_write = down_write.lock().await;
                            let _ = down_write.write_all(answer).await;
                            let _ = down_write.shutdown().await;
                            return;
                        }
                        if up_write.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = up_write.shutdown().await;
                    // Wait for the answers, which end the connection.
                    std::future::pending::<()>().await
                };
                let answers = async {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        let n = up_read.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        if losing.load(Ordering::SeqCst) {
                            if last.load(Ordering::SeqCst) {
                                run_between().await;
                            }
                            return; // the answer is lost with its connection
                        }
                        if down_write.lock().await.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = down_write.lock().await.shutdown().await;
                };
                tokio::select! {
                    _ = requests => {}
                    _ = answers => {}
                }
            });
        }
    });
    address.to_string()
}

/// Whether `request` holds a whole HTTP request: its headers and a body of
/// its Content-Length (none without one).
fn whole(request: &[u8]) -> bool {
    let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    request.len() - end - 4 >= length
}

/// `store`'s count of refusals in the lock group `group` comes to `want`
/// (a served store counts a message sent after the refusal; other groups'
/// counts are not looked at).
pub(crate) async fn refusals_counted(store: &tinystore::Store, group: &str, want: u64) {
    let want = Some(RefusedStatus {
        name: group.into(),
        kind: "lock".into(),
        refused: want,
    });
    let counted = || async {
        let status = store.status().await.unwrap();
        status
            .late_writes_refused
            .into_iter()
            .find(|counted| counted.name == group)
    };
    for _ in 0..500 {
        if counted().await == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(counted().await, want);
}
