//! The S3 guard when the answer to its put is lost and the SDK makes it
//! again, on moto's server through a proxy that forwards the guard's first
//! put, waits for moto's answer (the object is written by then), lets
//! another writer in if the test says so, then closes the connection
//! without a byte of that answer.
//!
//! The guard's put has no condition (one object per fence): the SDK's
//! retry lands as the first attempt did, and the listing after it decides.
//! Alone, the write is accepted. Overtaken, the listing finds the larger
//! fence: `stale`, our object deleted, as when a larger fence is put
//! between our put and our listing with the answer kept (docs/guards.md,
//! "A refusal after the put"). An SDK that makes no retry gives its error,
//! saying the put may have been written. A guarded delete (a tombstone put
//! at its fence) is played the same way.
#![cfg(feature = "guard-s3")]

use super::losing::{losing_proxy, nothing, refusals_counted, Between};
use super::s3::{client_at, s3_url};
use crate::support::served::served;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::Client;
use tinystore::guard::s3 as guard;
use tinystore::{Code, Fence, Lease};

/// A client of moto at `url` whose first put's answer is lost, `between`
/// run after moto wrote it; `retries` says whether the SDK retries
/// (its default) or makes each request once.
async fn losing(url: &str, between: Between, retries: bool) -> Client {
    let upstream = url.trim_start_matches("http://").trim_end_matches('/');
    let proxy = losing_proxy(upstream.to_string(), b"PUT /", between).await;
    let client = client_at(&format!("http://{proxy}"));
    if retries {
        return client;
    }
    let config = client
        .config()
        .to_builder()
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

async fn body(client: &Client, bucket: &str, key: &str) -> Option<(String, u128)> {
    let found = guard::get(client, bucket, key).await.unwrap()?;
    Some((String::from_utf8(found.body).unwrap(), found.fence.get()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_retried_is_accepted_or_refused_after_the_put() {
    let Some(url) = s3_url() else {
        return;
    };
    let client = client_at(&url);
    let bucket = format!("rs-lost-{}", std::process::id());
    client.create_bucket().bucket(&bucket).send().await.unwrap();
    let (_dir, _server, address) = served().await;
    let store = tinystore::Store::connect(&address).await.unwrap();
    let locks = store.locks("s3-lost");
    let older: Lease = locks.acquire("42").await.unwrap();
    older.release().await.unwrap();
    let newer = locks.acquire("42").await.unwrap();
    let (old, new) = (older.fence().get(), newer.fence().get());

    // Its answer lost alone: the SDK puts again, and it is accepted.
    let lossy = losing(&url, nothing(), true).await;
    guard::put(&lossy, &bucket, "alone", b"by older", &older)
        .await
        .unwrap();
    let read = body(&client, &bucket, "alone").await;
    assert_eq!(read, Some(("by older".into(), old)));

    // No retry: the SDK's error, which says the put may have landed (it
    // did).
    let lossy = losing(&url, nothing(), false).await;
    let err = guard::put(&lossy, &bucket, "once", b"by older", &older)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(err.message().contains("may have been written"), "{err}");
    let read = body(&client, &bucket, "once").await;
    assert_eq!(read, Some(("by older".into(), old)));

    // Overtaken before the retry: the older put landed (a read gave it),
    // the newer was accepted over it; the retry's listing finds the newer
    // fence: stale, as a refusal after the put, the newer's body kept.
    let (c, b, n) = (client.clone(), bucket.clone(), newer.fence());
    let overtake: Between = Box::pin(async move {
        let landed = body(&c, &b, "overtaken").await;
        assert_eq!(landed, Some(("by older".into(), old)), "landed first");
        guard::put(&c, &b, "overtaken", b"by newer", n)
            .await
            .expect("the newer writer is accepted");
    });
    let lossy = losing(&url, overtake, true).await;
    let err = guard::put(&lossy, &bucket, "overtaken", b"by older", &older)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    assert_eq!(err.stale_detail().unwrap().largest, new);
    let read = body(&client, &bucket, "overtaken").await;
    assert_eq!(read, Some(("by newer".into(), new)));

    // A refusal by the first listing, its answer kept: stale, told once.
    let err = guard::put(&client, &bucket, "overtaken", b"by older", &older)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    refusals_counted(&store, "s3-lost", 2).await;

    // A guarded delete is a tombstone put at its fence: its answer lost
    // alone, the SDK puts the tombstone again and the delete is accepted.
    guard::put(
        &client,
        &bucket,
        "gone",
        b"before",
        Fence::from_u128(old - 1),
    )
    .await
    .unwrap();
    let lossy = losing(&url, nothing(), true).await;
    guard::delete(&lossy, &bucket, "gone", &older)
        .await
        .unwrap();
    assert_eq!(body(&client, &bucket, "gone").await, None, "deleted");

    // Overtaken before the retry: the tombstone landed (the object read
    // as gone), the newer put over it; the retry's listing finds the
    // newer fence: stale, the newer's body kept, not deleted.
    guard::put(
        &client,
        &bucket,
        "kept",
        b"before",
        Fence::from_u128(old - 1),
    )
    .await
    .unwrap();
    let (c, b, n) = (client.clone(), bucket.clone(), newer.fence());
    let overtake: Between = Box::pin(async move {
        assert_eq!(
            body(&c, &b, "kept").await,
            None,
            "the tombstone landed first"
        );
        guard::put(&c, &b, "kept", b"by newer", n)
            .await
            .expect("the newer writer is accepted");
    });
    let lossy = losing(&url, overtake, true).await;
    let err = guard::delete(&lossy, &bucket, "kept", &older)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    assert_eq!(err.stale_detail().unwrap().largest, new);
    let read = body(&client, &bucket, "kept").await;
    assert_eq!(read, Some(("by newer".into(), new)));
    refusals_counted(&store, "s3-lost", 3).await;
}
