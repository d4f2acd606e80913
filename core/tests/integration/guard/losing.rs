//! What the lost-answer tests of the guards share: a loopback proxy that
//! loses the server's answer to one request (the server has decided it by
//! then), with another writer let in before the connection closes, and the
//! wait for a store's count of refusals.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let between = Arc::new(tokio::sync::Mutex::new(Some(between)));
    let lost_one = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((mut down, _)) = listener.accept().await {
            let mut up = TcpStream::connect(&upstream).await.unwrap();
            let (between, lost_one) = (between.clone(), lost_one.clone());
            tokio::spawn(async move {
                let (mut down_read, mut down_write) = down.split();
                let (mut up_read, mut up_write) = up.split();
                let losing = AtomicBool::new(false);
                let requests = async {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        let n = down_read.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        if buf[..n].windows(target.len()).any(|w| w == target)
                            && !lost_one.swap(true, Ordering::SeqCst)
                        {
                            losing.store(true, Ordering::SeqCst);
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
                            if let Some(writer) = between.lock().await.take() {
                                writer.await;
                            }
                            return; // the answer is lost with its connection
                        }
                        if down_write.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = down_write.shutdown().await;
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
