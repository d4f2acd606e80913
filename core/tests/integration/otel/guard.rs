//! The guards on object and document stores (S3 and DynamoDB on moto,
//! Google Cloud Storage on fake-gcs-server, Azure Blob on Azurite; the
//! servers tests/guards/with-*.sh start) given the lease itself: a late
//! write refused is told to the lease's store, whose status counts it per
//! group, and each check is a `tinystore.guard.check` span, accepted or
//! stale, with the fence and the resource, the refusal counted on the
//! store's backend. A store whose server is absent skips, as its own
//! guard tests do. The module is named `guard` so that the test names hold
//! `guard::`: `make test-guards-rust` runs them under every server, and
//! `make test-rust`, which has none, leaves them out.

use super::{refused_on, spans, telemetry, text};
use tinystore::testing::TestStore;
use tinystore::{Code, Lease, RefusedStatus, Result};

/// A lease on `key` of `group` overtaken by a newer one: the old one, run
/// out, now writes late.
async fn overtaken(kit: &TestStore, group: &str) -> (Lease, Lease) {
    let locks = kit.store().locks(group);
    let late = locks.acquire("k").await.unwrap();
    kit.expire(&late).await.unwrap();
    let later = locks.acquire("k").await.unwrap();
    (late, later)
}

/// Polls status until the group's count of refusals is `want`.
async fn status_counts(kit: &TestStore, group: &str, want: u64) {
    let expected = vec![RefusedStatus {
        name: group.into(),
        kind: "lock".into(),
        refused: want,
    }];
    for _ in 0..500 {
        if kit.store().status().await.unwrap().late_writes_refused == expected {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        kit.store().status().await.unwrap().late_writes_refused,
        expected
    );
}

/// Writes under the later lease (accepted), then under the late one
/// (stale), each given the lease itself through `write`, and checks what
/// the store, the spans and the counter on `backend` saw.
async fn told_and_traced(
    group: &str,
    backend: &str,
    resource: &str,
    write: impl AsyncFn(&Lease) -> Result<()>,
) {
    let telemetry = telemetry();
    let kit = TestStore::new().await.unwrap();
    let (late, later) = overtaken(&kit, group).await;
    write(&later).await.unwrap();
    let before = refused_on(telemetry, backend);
    let err = write(&late).await.unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    assert_eq!(err.stale_detail().unwrap().resource, resource);
    status_counts(&kit, group, 1).await;

    let checks = spans("tinystore.guard.check", "tinystore.resource", resource);
    let outcomes: Vec<(String, String)> = checks
        .iter()
        .map(|c| (text(c, "tinystore.fence"), text(c, "tinystore.outcome")))
        .collect();
    assert_eq!(
        outcomes,
        vec![
            (later.fence().text(), "accepted".to_string()),
            (late.fence().text(), "stale".to_string())
        ]
    );
    assert_eq!(text(&checks[1], "tinystore.largest"), later.fence().text());
    let after = refused_on(telemetry, backend);
    assert!(
        after > before,
        "the refusal was counted on {backend}: {before} then {after}"
    );
}

#[cfg(feature = "guard-s3")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_s3_guard_given_the_lease_tells_and_traces_its_checks() {
    use crate::guard::s3::{client_at, s3_url};
    let Some(url) = s3_url() else { return };
    let client = client_at(&url);
    let bucket = format!("rs-otel-{}", std::process::id());
    client.create_bucket().bucket(&bucket).send().await.unwrap();
    let resource = format!("{bucket}/chats/42.json");
    told_and_traced("otel-s3", "s3", &resource, async |lease: &Lease| {
        tinystore::guard::s3::put(&client, &bucket, "chats/42.json", b"{}", lease)
            .await
            .map(drop)
    })
    .await;
    // A delete given the lease is the same write: refused, and told.
    let kit = TestStore::new().await.unwrap();
    let (late, later) = overtaken(&kit, "otel-s3-delete").await;
    tinystore::guard::s3::delete(&client, &bucket, "gone", &later)
        .await
        .unwrap();
    let err = tinystore::guard::s3::delete(&client, &bucket, "gone", &late)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    status_counts(&kit, "otel-s3-delete", 1).await;
}

#[cfg(feature = "guard-dynamodb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dynamodb_guard_given_the_lease_tells_and_traces_its_checks() {
    let Some((client, table)) = crate::guard::dynamodb::chats("otel").await else {
        return;
    };
    told_and_traced(
        "otel-dynamodb",
        "dynamodb",
        "otel/chats/42",
        async |lease: &Lease| {
            let put = crate::guard::dynamodb::put(&table, "42", "the summary");
            tinystore::guard::dynamodb::put_item(&client, "otel/chats/42", put, lease).await
        },
    )
    .await;
}

#[cfg(all(feature = "guard-gcs", feature = "guard-azure"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gcs_and_azure_guards_given_the_lease_tell_and_trace_their_checks() {
    use crate::guard::versioned::{stores, Store};
    use gcloud_storage::http::objects::Object;
    use object_store::{path::Path, Attributes, PutPayload};
    let name = format!("otel/chats/{}", std::process::id());
    for (store, _) in stores() {
        let (group, backend) = match store {
            Store::Gcs(_) => ("otel-gcs", "gcs"),
            Store::Azure(_) => ("otel-azure", "azure"),
        };
        let resource = store.resource(&name);
        told_and_traced(
            group,
            backend,
            &resource,
            async |lease: &Lease| match &store {
                Store::Gcs(client) => {
                    let object = Object {
                        name: name.clone(),
                        ..Object::default()
                    };
                    tinystore::guard::gcs::upload_object(
                        client,
                        "tinystore",
                        &object,
                        "the summary",
                        lease,
                    )
                    .await
                    .map(drop)
                }
                Store::Azure(client) => tinystore::guard::azure::put(
                    &**client,
                    &Path::from(name.as_str()),
                    PutPayload::from("the summary"),
                    Attributes::new(),
                    lease,
                )
                .await
                .map(drop),
            },
        )
        .await;
    }
}

/// A request that carried the lease's fence, whose write the service's
/// SQLite guard refuses with 409 (a real hyper server behind FenceLayer):
/// `guard::http::answered` given the lease tells and traces it.
#[cfg(feature = "guard-http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_answer_read_given_the_lease_tells_and_traces() {
    use http_body_util::{BodyExt, Full};
    use hyper_util::rt::TokioIo;
    let (address, _) = crate::guard::http::serve().await;
    let resource = format!("{address}/save");
    told_and_traced("otel-http", "http", &resource, async |lease: &Lease| {
        let request = tinystore::guard::http::with_fence(
            http::Request::post("/save").header("host", "127.0.0.1"),
            lease.fence(),
        )
        .body(Full::new(bytes::Bytes::from("the summary")))
        .unwrap();
        let stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        let response = sender.send_request(request).await.unwrap();
        let answer = tinystore::guard::http::answered(&response, &resource, lease);
        response.into_body().collect().await.unwrap();
        answer
    })
    .await;
}
