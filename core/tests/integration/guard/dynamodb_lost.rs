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
use super::losing::{losing_proxy, nothing, refusals_counted, Between};
use crate::support::served::served;
use tinystore::guard::dynamodb as guard;
use tinystore::{Code, Lease};

/// A client of moto at `url` whose first transaction's answer is lost,
/// `between` run after moto decided it and before the SDK's retry.
async fn losing(url: &str, between: Between) -> aws_sdk_dynamodb::Client {
    let upstream = url.trim_start_matches("http://").trim_end_matches('/');
    let target = b"DynamoDB_20120810.TransactWriteItems";
    let proxy = losing_proxy(upstream.to_string(), target, between).await;
    client_at(&format!("http://{proxy}"))
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
    refusals_counted(&store, "chats", 1).await;
}
