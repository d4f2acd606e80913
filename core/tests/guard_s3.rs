//! The object-storage guard on a real S3-compatible server (moto's, at
//! `$TINYSTORE_S3_URL`; tests/guards/with-s3.sh starts one): every
//! object_guard case of vectors/behaviour.json, a put that loses a race to
//! a real second writer and decides again, a guarded delete, the caller's
//! metadata, and a HEAD refused with 403. The races and the 403 go through
//! a loopback proxy in front of moto that lets a second writer in just
//! before a conditional PUT, or answers a HEAD itself.
//! Without the variable these tests skip, unless `TINYSTORE_REQUIRE_S3=1`
//! (as `make test` sets), where they fail.
#![cfg(feature = "guard-s3")]

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tinystore::guard::object::{MAX_TRIES, METADATA_KEY, TOMBSTONE_KEY};
use tinystore::guard::s3;
use tinystore::{Code, Fence};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

fn s3_url() -> Option<String> {
    match std::env::var("TINYSTORE_S3_URL") {
        Ok(url) => Some(url),
        Err(_) => {
            assert!(
                std::env::var("TINYSTORE_REQUIRE_S3").as_deref() != Ok("1"),
                "TINYSTORE_S3_URL is not set: run under tests/guards/with-s3.sh"
            );
            eprintln!("skipped: TINYSTORE_S3_URL is not set");
            None
        }
    }
}

fn client_at(url: &str) -> Client {
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .force_path_style(true)
        .build();
    Client::from_conf(config)
}

/// A bucket of its own for one test.
async fn bucket(client: &Client, name: &str) -> String {
    let name = format!("rs-{name}-{}", std::process::id());
    client.create_bucket().bucket(&name).send().await.unwrap();
    name
}

/// A plain put (no guard), with `fence` as the metadata if given.
async fn plain_put(client: &Client, bucket: &str, key: &str, body: &str, fence: Option<&str>) {
    let mut put = client
        .put_object()
        .bucket(bucket)
        .key(key)
        .body(ByteStream::from(body.as_bytes().to_vec()));
    if let Some(fence) = fence {
        put = put.metadata(METADATA_KEY, fence);
    }
    put.send().await.unwrap();
}

/// The object's body and metadata; `None` when there is none.
async fn read(
    client: &Client,
    bucket: &str,
    key: &str,
) -> Option<(String, HashMap<String, String>)> {
    let out = match client.get_object().bucket(bucket).key(key).send().await {
        Ok(out) => out,
        Err(err) if err.raw_response().map(|r| r.status().as_u16()) == Some(404) => return None,
        Err(err) => panic!("get {bucket}/{key}: {err:?}"),
    };
    let metadata = out.metadata().cloned().unwrap_or_default();
    let body = out.body.collect().await.unwrap().into_bytes();
    Some((String::from_utf8(body.to_vec()).unwrap(), metadata))
}

fn fence(n: u128) -> Fence {
    Fence::from_u128(n)
}

#[tokio::test]
async fn every_object_guard_vector_holds_on_moto() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "vectors").await;
    let all: Value = serde_json::from_str(include_str!("../../vectors/behaviour.json")).unwrap();
    let cases = all["object_guard"]["cases"].as_array().unwrap();
    assert!(
        cases.len() >= 10,
        "the object_guard vectors have lost cases"
    );
    for (i, case) in cases.iter().enumerate() {
        let id = case["id"].as_str().unwrap();
        let text = |k: &str| case.get(k).and_then(Value::as_str);
        // Each case on a key of its own: the case's key under a prefix.
        let key = format!("{i}/{}", text("key").unwrap_or("chats/42.json"));
        let before = if let Some(stored) = case.get("stored") {
            let body = text("stored_body").unwrap_or("old");
            plain_put(&client, &bucket, &key, body, stored.as_str()).await;
            read(&client, &bucket, &key).await
        } else {
            None
        };
        let f = Fence::parse(text("fence").unwrap()).unwrap();
        let outcome = s3::put(&client, &bucket, &key, b"new", f).await;
        let after = read(&client, &bucket, &key).await;
        if text("expect") == Some("written") {
            let written = outcome.unwrap_or_else(|e| panic!("{id}: {e}"));
            let (body, metadata) = after.unwrap_or_else(|| panic!("{id}: no object"));
            assert_eq!(body, "new", "{id}");
            assert_eq!(
                metadata.get(METADATA_KEY).map(String::as_str),
                text("stored_after"),
                "{id}"
            );
            assert_eq!(
                written.etag.as_deref().map(|e| e.trim_matches('"')),
                Some(s3::hex_md5(b"new").as_str()),
                "{id}"
            );
            continue;
        }
        let err = outcome.expect_err(id);
        let want = Code::parse(text("expect").unwrap()).unwrap();
        assert_eq!(err.code(), want, "{id}: {err}");
        if let Some(part) = text("message_has") {
            assert!(err.message().contains(part), "{id}: {err}");
        }
        if let Some(largest) = text("largest") {
            let stale = err.stale_detail().expect("a stale error has its fences");
            assert_eq!(stale.largest, largest.parse::<u128>().unwrap(), "{id}");
            assert_eq!(stale.fence, f.get(), "{id}");
            assert_eq!(stale.resource, format!("{bucket}/{key}"), "{id}");
        }
        assert_eq!(after, before, "{id}: a refused put changed the object");
    }
}

/// What the proxy does to requests on their way to moto.
#[derive(Default)]
struct Plan {
    /// Conditional PUTs seen (`If-Match` or `If-None-Match`).
    conditional_puts: AtomicUsize,
    /// How many of them a second writer's put comes just before.
    interventions: AtomicUsize,
    /// The second writer: its client (straight to moto), bucket, key, fence.
    writer: Option<(Client, String, String, Fence)>,
    /// Answer every HEAD with 403 Forbidden, without asking moto.
    forbid_head: bool,
}

/// A loopback proxy in front of moto at `upstream` (http://host:port),
/// doing what `plan` says; its own http:// address.
async fn proxy(upstream: &str, plan: Arc<Plan>) -> String {
    let upstream = upstream.trim_start_matches("http://").to_string();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = TcpStream::connect(&upstream).await.unwrap();
            tokio::spawn(relay(client, server, plan.clone()));
        }
    });
    address
}

async fn relay(client: TcpStream, server: TcpStream, plan: Arc<Plan>) {
    let (mut client_in, client_out) = client.into_split();
    let (mut server_in, mut server_out) = server.into_split();
    let client_out = Arc::new(Mutex::new(client_out));
    let back = client_out.clone();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = server_in.read(&mut buf).await {
            if n == 0 || back.lock().await.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    });
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(n) = client_in.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        let head = String::from_utf8_lossy(chunk).to_ascii_lowercase();
        if plan.forbid_head && head.starts_with("head ") {
            let answer = "HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n";
            let _ = client_out.lock().await.write_all(answer.as_bytes()).await;
            continue;
        }
        let conditional = head.starts_with("put ")
            && (head.contains("\r\nif-match:") || head.contains("\r\nif-none-match:"));
        if conditional {
            plan.conditional_puts.fetch_add(1, Ordering::SeqCst);
            let take = plan
                .interventions
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            if let (Ok(_), Some((writer, bucket, key, f))) = (take, &plan.writer) {
                let body = format!(
                    "second writer {}",
                    plan.conditional_puts.load(Ordering::SeqCst)
                );
                s3::put(writer, bucket, key, body.as_bytes(), *f)
                    .await
                    .expect("the second writer's put");
            }
        }
        if server_out.write_all(chunk).await.is_err() {
            break;
        }
    }
}

/// A bucket and a client through a proxy whose second writer writes with
/// `theirs`, `interventions` times.
async fn raced(
    name: &str,
    theirs: u128,
    interventions: usize,
) -> Option<(Client, Client, String, Arc<Plan>)> {
    let url = s3_url()?;
    let direct = client_at(&url);
    let bucket = bucket(&direct, name).await;
    let plan = Arc::new(Plan {
        interventions: AtomicUsize::new(interventions),
        writer: Some((direct.clone(), bucket.clone(), "k".into(), fence(theirs))),
        ..Plan::default()
    });
    let through = client_at(&proxy(&url, plan.clone()).await);
    Some((direct, through, bucket, plan))
}

#[tokio::test]
async fn a_put_that_loses_a_race_reads_again_and_decides_again() {
    let Some((direct, through, bucket, plan)) = raced("race", 8, 1).await else {
        return;
    };
    // First try: the second writer (fence 8) creates the object between our
    // HEAD (no object) and our If-None-Match put, which gets 412.
    s3::put(&through, &bucket, "k", b"ours", fence(9))
        .await
        .unwrap();
    assert_eq!(plan.conditional_puts.load(Ordering::SeqCst), 2, "one retry");
    let (body, metadata) = read(&direct, &bucket, "k").await.unwrap();
    assert_eq!(body, "ours");
    assert_eq!(metadata[METADATA_KEY], fence(9).text());
}

#[tokio::test]
async fn a_put_overtaken_by_a_larger_fence_is_stale_on_its_second_read() {
    let Some((direct, through, bucket, plan)) = raced("overtaken", 10, 1).await else {
        return;
    };
    plain_put(&direct, &bucket, "k", "old", Some(&fence(5).text())).await;
    let err = s3::put(&through, &bucket, "k", b"ours", fence(9))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    let stale = err.stale_detail().unwrap();
    assert_eq!((stale.fence, stale.largest), (9, 10));
    assert_eq!(stale.resource, format!("{bucket}/k"));
    assert_eq!(plan.conditional_puts.load(Ordering::SeqCst), 1);
    let (body, metadata) = read(&direct, &bucket, "k").await.unwrap();
    assert_eq!(
        (body.as_str(), metadata[METADATA_KEY].as_str()),
        ("second writer 1", fence(10).text().as_str())
    );
}

#[tokio::test]
async fn a_put_that_loses_every_race_gives_up_with_limit() {
    let Some((direct, through, bucket, plan)) = raced("races", 9, usize::MAX).await else {
        return;
    };
    let err = s3::put(&through, &bucket, "k", b"ours", fence(9))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Limit, "{err}");
    assert!(err.message().contains(&format!("{bucket}/k")), "{err}");
    assert_eq!(
        plan.conditional_puts.load(Ordering::SeqCst),
        MAX_TRIES as usize
    );
    let (body, _) = read(&direct, &bucket, "k").await.unwrap();
    assert_ne!(body, "ours");
}

#[tokio::test]
async fn a_head_refused_with_403_is_unauthorized_and_writes_nothing() {
    let Some(url) = s3_url() else { return };
    let direct = client_at(&url);
    let bucket = bucket(&direct, "forbidden").await;
    let plan = Arc::new(Plan {
        forbid_head: true,
        ..Plan::default()
    });
    let through = client_at(&proxy(&url, plan.clone()).await);
    let err = s3::put(&through, &bucket, "k", b"ours", fence(3))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    assert!(
        err.message().contains(&format!("\"{bucket}/k\"")) && err.message().contains("metadata"),
        "{err}"
    );
    assert_eq!(plan.conditional_puts.load(Ordering::SeqCst), 0);
    assert_eq!(read(&direct, &bucket, "k").await, None);
}

#[tokio::test]
async fn a_guarded_delete_leaves_a_tombstone_that_keeps_the_fence() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "delete").await;
    s3::put(&client, &bucket, "k", b"v1", fence(4))
        .await
        .unwrap();
    s3::delete(&client, &bucket, "k", fence(5)).await.unwrap();
    let (body, metadata) = read(&client, &bucket, "k").await.unwrap();
    assert_eq!(body, "");
    assert!(s3::is_tombstone(Some(&metadata)), "{metadata:?}");
    assert_eq!(metadata[METADATA_KEY], fence(5).text());
    // A late holder cannot bring it back; a later one can.
    let err = s3::put(&client, &bucket, "k", b"v0", fence(4))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    let err = s3::delete(&client, &bucket, "k", fence(4))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    s3::put(&client, &bucket, "k", b"v2", fence(6))
        .await
        .unwrap();
    let (body, metadata) = read(&client, &bucket, "k").await.unwrap();
    assert_eq!(body, "v2");
    assert!(!s3::is_tombstone(Some(&metadata)));
}

#[tokio::test]
async fn the_callers_metadata_is_kept_but_may_not_set_the_guards_own() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "metadata").await;
    let mine = HashMap::from([("author".to_string(), "rust".to_string())]);
    s3::put_with_metadata(&client, &bucket, "k", b"v", fence(2), &mine)
        .await
        .unwrap();
    let (_, metadata) = read(&client, &bucket, "k").await.unwrap();
    assert_eq!(metadata["author"], "rust");
    assert_eq!(metadata[METADATA_KEY], fence(2).text());
    for own in [METADATA_KEY, TOMBSTONE_KEY, "Tinystore-Fence"] {
        let bad = HashMap::from([(own.to_string(), "x".to_string())]);
        let err = s3::put_with_metadata(&client, &bucket, "k", b"w", fence(3), &bad)
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.message().contains(own), "{err}");
    }
    let (body, _) = read(&client, &bucket, "k").await.unwrap();
    assert_eq!(body, "v", "a refused put wrote");
}
