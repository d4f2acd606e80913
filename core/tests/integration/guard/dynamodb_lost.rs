//! The DynamoDB guard when the answer to its transaction is lost and the
//! SDK makes it again, on moto's server through a proxy that forwards the
//! first `TransactWriteItems`, waits for moto's answer, lets another
//! writer in if the test says so, then closes the connection without a
//! byte of that answer. The SDK sees the connection closed, and retries.
//!
//! Moto, as DynamoDB beyond its ten minutes or a store that ignores it,
//! does not answer a retry with the same `ClientRequestToken` from the
//! first attempt's outcome: the retry is judged again. A write that landed
//! and was then overtaken is cancelled on its retry, and a refusal retried
//! is refused again; the guard cannot tell one from the other, and says
//! `unavailable` (its outcome unknown) for both, telling the lease's store
//! nothing; a refusal is told only when no answer was lost.
#![cfg(feature = "guard-dynamodb")]

use super::dynamodb::{chats, client_at, put, summary};
use crate::support::served::served;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tinystore::guard::dynamodb as guard;
use tinystore::{Code, Lease, RefusedStatus};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

type Between = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A loopback proxy in front of `upstream` (host:port) that loses moto's
/// answer to the first `TransactWriteItems`: it forwards the request, waits
/// for the answer's first bytes (moto has decided by then), runs `between`,
/// and closes the connection unanswered. Every other request and answer
/// goes through as it is.
async fn losing_proxy(upstream: String, between: Between) -> String {
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
                        let target = b"DynamoDB_20120810.TransactWriteItems";
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
    format!("http://{address}")
}

/// `store`'s count of refusals in the group `chats` comes to `want` (a
/// served store counts a message sent after the refusal).
async fn refusals_counted(store: &tinystore::Store, want: u64) {
    let want = vec![RefusedStatus {
        name: "chats".into(),
        kind: "lock".into(),
        refused: want,
    }];
    for _ in 0..500 {
        if store.status().await.unwrap().late_writes_refused == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(store.status().await.unwrap().late_writes_refused, want);
}

/// A client of moto at `url` whose first transaction's answer is lost,
/// `between` run after moto decided it and before the SDK's retry.
async fn losing(url: &str, between: Between) -> aws_sdk_dynamodb::Client {
    let upstream = url.trim_start_matches("http://").trim_end_matches('/');
    client_at(&losing_proxy(upstream.to_string(), between).await)
}

fn nothing() -> Between {
    Box::pin(async {})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_retried_is_accepted_or_in_doubt_never_stale() {
    let Some((client, table)) = chats("lost").await else {
        return;
    };
    let url = std::env::var("TINYSTORE_S3_URL").unwrap();
    let (_dir, _server, address) = served().await;
    let store = tinystore::Store::connect(&address).await.unwrap();
    let locks = store.locks("chats");
    let older: Lease = locks.acquire("42").await.unwrap();
    older.release().await.unwrap();
    let newer = locks.acquire("42").await.unwrap();

    // Accepted, its answer lost: the retry carries the same fence, which
    // is accepted again.
    let r = format!("{table}/alone");
    let lossy = losing(&url, nothing()).await;
    guard::put_item(&lossy, &r, put(&table, "alone", "by older"), &older)
        .await
        .unwrap();
    assert_eq!(
        summary(&client, &table, "alone").await.as_deref(),
        Some("by older")
    );

    // Accepted, its answer lost, overtaken before the retry: the older
    // write landed, so it may not be called stale.
    let r = format!("{table}/overtaken");
    let (c, t, rr, n) = (client.clone(), table.clone(), r.clone(), newer.fence());
    let overtake: Between = Box::pin(async move {
        guard::put_item(&c, &rr, put(&t, "overtaken-newer", "by newer"), n)
            .await
            .expect("the newer writer is accepted");
    });
    let lossy = losing(&url, overtake).await;
    let err = guard::put_item(&lossy, &r, put(&table, "overtaken", "by older"), &older)
        .await
        .unwrap_err();
    assert_eq!(
        summary(&client, &table, "overtaken").await.as_deref(),
        Some("by older"),
        "the older write landed before the newer"
    );
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(err.stale_detail().is_none(), "{err}");
    assert!(err.message().contains("may have been written"), "{err}");

    // Refused, its answer lost, refused again on the retry: in doubt the
    // same, for the guard cannot tell it from the case above.
    let r = format!("{table}/refused");
    guard::put_item(
        &client,
        &r,
        put(&table, "refused-newer", "by newer"),
        &newer,
    )
    .await
    .unwrap();
    let lossy = losing(&url, nothing()).await;
    let err = guard::put_item(&lossy, &r, put(&table, "refused", "by older"), &older)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert_eq!(summary(&client, &table, "refused").await, None);

    // The same refusal with its answer kept is stale, and told: the one
    // refusal the store counts, so that neither case above was told.
    let err = guard::put_item(&client, &r, put(&table, "refused", "by older"), &older)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    assert_eq!(err.stale_detail().unwrap().largest, newer.fence().get());
    refusals_counted(&store, 1).await;
}
