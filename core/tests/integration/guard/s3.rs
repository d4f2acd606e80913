//! The object-storage guard on a real S3-compatible server (moto's, at
//! `$TINYSTORE_S3_URL`; tests/guards/with-s3.sh starts one): every
//! object_guard case of vectors/behaviour.json, a guarded delete read back
//! as none, the caller's metadata, a listing refused with 403 (through a
//! loopback proxy in front of moto, since moto does not enforce
//! permissions), and a bucket that does not exist. The races are the
//! conformance matrix's (guard/conformance).
//! Without the variable these tests skip, unless `TINYSTORE_REQUIRE_S3=1`
//! (as `make test` sets), where they fail.
#![cfg(feature = "guard-s3")]

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use serde_json::Value;
use std::collections::HashMap;
use std::error::Error as _;
use tinystore::guard::object::{METADATA_KEY, TOMBSTONE_KEY};
use tinystore::guard::object_layout::fences_prefix;
use tinystore::guard::s3;
use tinystore::{Code, Fence};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub(crate) fn s3_url() -> Option<String> {
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

pub(crate) fn client_at(url: &str) -> Client {
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

/// A plain put (no guard).
async fn plain_put(client: &Client, bucket: &str, key: &str, body: &str) {
    let put = client
        .put_object()
        .bucket(bucket)
        .key(key)
        .body(ByteStream::from(body.as_bytes().to_vec()));
    put.send().await.unwrap();
}

/// The keys under `prefix`, without it, in order.
async fn listed(client: &Client, bucket: &str, prefix: &str) -> Vec<String> {
    let out = client
        .list_objects_v2()
        .bucket(bucket)
        .prefix(prefix)
        .send()
        .await
        .unwrap();
    let mut keys: Vec<String> = out
        .contents()
        .iter()
        .filter_map(|o| o.key()?.strip_prefix(prefix).map(str::to_string))
        .collect();
    keys.sort();
    keys
}

/// A plain read of one object's body.
async fn plain_body(client: &Client, bucket: &str, key: &str) -> Option<String> {
    let out = client
        .get_object()
        .bucket(bucket)
        .key(key)
        .send()
        .await
        .ok()?;
    let body = out.body.collect().await.unwrap().into_bytes();
    Some(String::from_utf8(body.to_vec()).unwrap())
}

fn fence(n: u128) -> Fence {
    Fence::from_u128(n)
}

#[tokio::test]
async fn every_object_guard_vector_holds_on_moto() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "vectors").await;
    let all: Value =
        serde_json::from_str(include_str!("../../../../vectors/behaviour.json")).unwrap();
    let cases = all["object_guard"]["cases"].as_array().unwrap();
    assert!(
        cases.len() >= 11,
        "the object_guard vectors have lost cases"
    );
    for (i, case) in cases.iter().enumerate() {
        let id = case["id"].as_str().unwrap();
        let text = |k: &str| case.get(k).and_then(Value::as_str);
        // Each case on a key of its own: the case's key under a prefix.
        let key = format!("{i}/{}", text("key").unwrap_or("chats/42.json"));
        let prefix = fences_prefix(&key);
        if let Some(stored) = text("stored") {
            plain_put(&client, &bucket, &format!("{prefix}{stored}"), "old").await;
        }
        if case.get("plain").and_then(Value::as_bool) == Some(true) {
            plain_put(&client, &bucket, &key, "plain").await;
        }
        let before = (
            listed(&client, &bucket, &prefix).await,
            plain_body(&client, &bucket, &key).await,
        );
        let f = Fence::parse(text("fence").unwrap()).unwrap();
        let body = text("body").unwrap_or("new");
        let outcome = s3::put(&client, &bucket, &key, body.as_bytes(), f).await;
        if text("expect") == Some("written") {
            let written = outcome.unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(written.key, format!("{prefix}{}", f.text()), "{id}");
            let found = s3::get(&client, &bucket, &key).await.unwrap().expect(id);
            assert_eq!(
                (found.body.as_slice(), found.fence.to_string().as_str()),
                (body.as_bytes(), text("read_after").unwrap()),
                "{id}"
            );
            let want: Vec<String> = serde_json::from_value(case["listed_after"].clone()).unwrap();
            assert_eq!(listed(&client, &bucket, &prefix).await, want, "{id}");
            assert_eq!(
                plain_body(&client, &bucket, &key).await,
                before.1,
                "{id}: the plain object changed"
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
        let after = (
            listed(&client, &bucket, &prefix).await,
            plain_body(&client, &bucket, &key).await,
        );
        assert_eq!(after, before, "{id}: a refused put changed the objects");
    }
}

#[tokio::test]
async fn a_guarded_delete_reads_as_none_and_keeps_the_fence() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "delete").await;
    assert_eq!(s3::get(&client, &bucket, "k").await.unwrap(), None);
    s3::put(&client, &bucket, "k", b"v1", fence(4))
        .await
        .unwrap();
    s3::delete(&client, &bucket, "k", fence(5)).await.unwrap();
    s3::delete(&client, &bucket, "k", fence(5)).await.unwrap(); // again: fine
    assert_eq!(s3::get(&client, &bucket, "k").await.unwrap(), None);
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
    let found = s3::get(&client, &bucket, "k").await.unwrap().unwrap();
    assert_eq!((found.body.as_slice(), found.fence), (&b"v2"[..], fence(6)));
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
    let found = s3::get(&client, &bucket, "k").await.unwrap().unwrap();
    assert_eq!(found.metadata, mine);
    for own in [METADATA_KEY, TOMBSTONE_KEY, "Tinystore-Fence"] {
        let bad = HashMap::from([(own.to_string(), "x".to_string())]);
        let err = s3::put_with_metadata(&client, &bucket, "k", b"w", fence(3), &bad)
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.message().contains(own), "{err}");
    }
    let found = s3::get(&client, &bucket, "k").await.unwrap().unwrap();
    assert_eq!(found.body, b"v", "a refused put wrote");
}

/// A loopback proxy in front of moto at `upstream` that answers every
/// listing (a GET with `list-type=2`) with 403 itself; its own address.
async fn forbidding_listings(upstream: &str) -> String {
    let upstream = upstream.trim_start_matches("http://").to_string();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let mut first = vec![0u8; 64 * 1024];
                let n = client.read(&mut first).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&first[..n]).to_string();
                if head.starts_with("GET ")
                    && head.lines().next().unwrap_or("").contains("list-type=2")
                {
                    let body =
                        "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>";
                    let answer = format!("HTTP/1.1 403 Forbidden\r\ncontent-type: application/xml\r\ncontent-length: {}\r\n\r\n{body}", body.len());
                    let _ = client.write_all(answer.as_bytes()).await;
                    return;
                }
                let mut server = TcpStream::connect(&upstream).await.unwrap();
                if server.write_all(&first[..n]).await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    address
}

#[tokio::test]
async fn a_refused_listing_is_unauthorized_with_the_sdks_error_as_its_cause() {
    let Some(url) = s3_url() else { return };
    let bucket = bucket(&client_at(&url), "forbidden").await;
    let client = client_at(&forbidding_listings(&url).await);
    let err = s3::put(&client, &bucket, "k", b"v", fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    assert!(
        err.message().contains("AccessDenied") && err.message().contains(&format!("{bucket}/k")),
        "{err}"
    );
    assert!(err.source().is_some(), "the SDK's error is its cause");
    assert_eq!(
        s3::get(&client_at(&url), &bucket, "k").await.unwrap(),
        None,
        "nothing was written"
    );
}

#[tokio::test]
async fn a_bucket_that_does_not_exist_is_the_sdks_error() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let err = s3::put(&client, "rs-no-such-bucket", "k", b"v", fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(err.message().contains("NoSuchBucket"), "{err}");
}

/// Drives a guarded put of `fence` with `body` by steps: `pause` steps
/// made, then `between` run, then the rest; each request of the first
/// `repeat` steps made twice, as an SDK makes a request again whose
/// answer was lost.
async fn stepped(
    client: &Client,
    bucket: &str,
    fence: Fence,
    body: &[u8],
    pause: usize,
    repeat: usize,
    between: impl std::future::Future<Output = ()>,
) -> Result<(), tinystore::Error> {
    use tinystore::guard::{ObjectStep, ObjectWrite};
    let mut machine = ObjectWrite::put(bucket, "k", fence, vec![]);
    let mut steps = s3::Steps::new(client, bucket, body);
    let mut step = machine.start();
    let mut between = Some(between);
    for made in 0.. {
        if made == pause {
            between.take().unwrap().await;
        }
        if let ObjectStep::Done(verdict) = step {
            return steps.finish(verdict);
        }
        if made < repeat {
            steps.make(step.clone()).await;
        }
        step = machine.observe(steps.make(step).await);
    }
    unreachable!()
}

#[tokio::test]
async fn a_writer_stopped_after_its_put_is_refused_and_leaves_nothing_behind() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "paused-after-put").await;
    s3::put(&client, &bucket, "k", b"v5", fence(5))
        .await
        .unwrap();
    // The late writer listed and put (its object the largest for a while),
    // then stopped; a later holder wrote, and tidied the late object away.
    let later = async {
        s3::put(&client, &bucket, "k", b"v9", fence(9))
            .await
            .unwrap();
    };
    let err = stepped(&client, &bucket, fence(7), b"v7", 2, 0, later)
        .await
        .unwrap_err();
    assert_eq!(
        err.stale_detail().map(|s| (s.fence, s.largest)),
        Some((7, 9)),
        "{err}"
    );
    let found = s3::get(&client, &bucket, "k").await.unwrap().unwrap();
    assert_eq!((found.body.as_slice(), found.fence), (&b"v9"[..], fence(9)));
    assert_eq!(
        listed(&client, &bucket, &fences_prefix("k")).await,
        [fence(9).text()]
    );
}

#[tokio::test]
async fn requests_made_twice_and_tombstones_written_twice_keep_the_rule() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "twice").await;
    // Every request of a write made twice (a lost answer, retried).
    stepped(
        &client,
        &bucket,
        fence(4),
        b"v4",
        usize::MAX,
        usize::MAX,
        async {},
    )
    .await
    .unwrap();
    stepped(
        &client,
        &bucket,
        fence(6),
        b"v6",
        usize::MAX,
        usize::MAX,
        async {},
    )
    .await
    .unwrap();
    assert_eq!(
        listed(&client, &bucket, &fences_prefix("k")).await,
        [fence(6).text()]
    );
    // A late writer's requests made twice too: refused, nothing left.
    let err = stepped(
        &client,
        &bucket,
        fence(5),
        b"v5",
        usize::MAX,
        usize::MAX,
        async {},
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    // A tombstone twice, a stale put between, then the same body again later.
    s3::delete(&client, &bucket, "k", fence(7)).await.unwrap();
    let err = s3::put(&client, &bucket, "k", b"v6", fence(6))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    s3::delete(&client, &bucket, "k", fence(7)).await.unwrap();
    assert_eq!(s3::get(&client, &bucket, "k").await.unwrap(), None);
    s3::put(&client, &bucket, "k", b"v6", fence(8))
        .await
        .unwrap();
    let found = s3::get(&client, &bucket, "k").await.unwrap().unwrap();
    assert_eq!((found.body.as_slice(), found.fence), (&b"v6"[..], fence(8)));
    assert_eq!(
        listed(&client, &bucket, &fences_prefix("k")).await,
        [fence(8).text()]
    );
}

#[tokio::test]
async fn a_writer_stopped_between_its_listing_and_its_put_is_refused_though_bodies_repeat() {
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = bucket(&client, "paused-before-put").await;
    s3::put(&client, &bucket, "k", b"x", fence(100))
        .await
        .unwrap();
    // The late writer (101) listed, then stopped before its put; meanwhile
    // one writer put another body and the next put the late writer's own
    // body again: an ETag would read as it did before the pause.
    let others = async {
        s3::put(&client, &bucket, "k", b"y", fence(102))
            .await
            .unwrap();
        s3::put(&client, &bucket, "k", b"x", fence(103))
            .await
            .unwrap();
    };
    let err = stepped(&client, &bucket, fence(101), b"x", 1, 0, others)
        .await
        .unwrap_err();
    assert_eq!(
        err.stale_detail().map(|s| (s.fence, s.largest)),
        Some((101, 103)),
        "{err}"
    );
    let found = s3::get(&client, &bucket, "k").await.unwrap().unwrap();
    assert_eq!(
        (found.body.as_slice(), found.fence),
        (&b"x"[..], fence(103))
    );
    assert_eq!(
        listed(&client, &bucket, &fences_prefix("k")).await,
        [fence(103).text()]
    );

    // The same through tombstones: delete, put, delete while it is stopped.
    let others = async {
        s3::delete(&client, &bucket, "k", fence(105)).await.unwrap();
        s3::put(&client, &bucket, "k", b"z", fence(106))
            .await
            .unwrap();
        s3::delete(&client, &bucket, "k", fence(107)).await.unwrap();
    };
    let err = stepped(&client, &bucket, fence(104), b"", 1, 1, others)
        .await
        .unwrap_err();
    assert_eq!(
        err.stale_detail().map(|s| (s.fence, s.largest)),
        Some((104, 107)),
        "{err}"
    );
    assert_eq!(s3::get(&client, &bucket, "k").await.unwrap(), None);
    assert_eq!(
        listed(&client, &bucket, &fences_prefix("k")).await,
        [fence(107).text()]
    );
}
