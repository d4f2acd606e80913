//! The GCS and Azure guards when the answer to their conditional put is
//! lost, on fake-gcs-server and Azurite through a proxy that forwards the
//! guard's first put, waits for the server's answer (the object is written
//! by then), lets another writer in if the test says so, then closes the
//! connection without a byte of that answer.
//!
//! object_store makes the put again (it retries a request whose connection
//! closed before its answer, conditional or not); the retry's condition
//! fails, for the first attempt changed the version, and the guard reads
//! again: its own fence is accepted once more; a larger fence cannot be
//! told from a write that never landed, so the put is `unavailable`, "may
//! have been written", and the lease's store is told nothing.
//! gcloud-storage makes each request once: the lost answer is the call's
//! `unavailable`, its message saying the put may have been written.
#![cfg(all(feature = "guard-gcs", feature = "guard-azure"))]

use super::losing::{nothing, planned_proxy, refusals_counted, Between};
use super::versioned::{gcs_at, stores, Store};
use crate::support::served::served;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::{BackoffConfig, ClientOptions, RetryConfig};
use std::sync::Arc;
use std::time::Duration;
use tinystore::{Code, Lease};

/// An Azure client that retries as object_store does by default (fewer
/// times, sooner).
fn azure_retrying(url: &str) -> Store {
    let options = ClientOptions::new()
        .with_allow_http(true)
        .with_timeout(Duration::from_secs(5));
    let retry = RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(10),
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(100),
            base: 2.,
        },
    };
    let client = MicrosoftAzureBuilder::new()
        .with_account("devstoreaccount1")
        .with_access_key(std::env::var("TINYSTORE_AZURE_KEY").unwrap())
        .with_endpoint(url.to_string())
        .with_container_name("tinystore")
        .with_client_options(options)
        .with_retry(retry)
        .build()
        .unwrap();
    Store::Azure(Arc::new(client))
}

/// `store` seen through a proxy that loses the answer to the guard's first
/// put, `between` run after the server wrote it.
async fn losing(store: &Store, url: &str, between: Between) -> Store {
    planned(store, url, between, vec![None]).await
}

/// Azure's 503 answer to a request it could not take.
const SERVER_BUSY: &[u8] =
    b"HTTP/1.1 503 Server Busy\r\nx-ms-error-code: ServerBusy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/// `store` seen through a proxy that plays `plan` on the guard's puts
/// (`planned_proxy`), `between` run at its last step.
async fn planned(
    store: &Store,
    url: &str,
    between: Between,
    plan: Vec<Option<&'static [u8]>>,
) -> Store {
    let (scheme_host, rest) = url.split_at(url.find("://").unwrap() + 3);
    let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
    let (target, proxied): (&'static [u8], fn(&str) -> Store) = match store {
        Store::Gcs(_) => (b"POST /upload/", gcs_at),
        Store::Azure(_) => (b"PUT /", azure_retrying),
    };
    let proxy = planned_proxy(host.to_string(), target, between, plan).await;
    proxied(format!("{scheme_host}{proxy}/{path}").trim_end_matches('/'))
}

fn fence_text(lease: &Lease) -> Option<String> {
    Some(lease.fence().text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_is_accepted_or_in_doubt_never_stale() {
    let (_dir, _server, address) = served().await;
    let store = tinystore::Store::connect(&address).await.unwrap();
    for (at, url) in stores() {
        let group = format!("lost-{at:?}");
        let locks = store.locks(&group);
        let older: Lease = locks.acquire("42").await.unwrap();
        older.release().await.unwrap();
        let newer = locks.acquire("42").await.unwrap();
        let n = |case: &str| format!("rs-lost-{case}-{}", std::process::id());

        // Its answer lost alone: object_store's retry fails its condition,
        // the guard reads its own fence and puts again; gcloud-storage
        // makes no retry, and says the put may have landed.
        let name = n("alone");
        let lossy = losing(&at, &url, nothing()).await;
        let got = lossy.guarded_under(&name, "by older", &older, &[]).await;
        match at {
            Store::Azure(_) => got.unwrap(),
            Store::Gcs(_) => {
                let err = got.unwrap_err();
                assert_eq!(err.code(), Code::Unavailable, "{at:?}: {err}");
                assert!(err.message().contains("may have been written"), "{err}");
            }
        }
        let read = at.read(&name).await;
        assert_eq!(
            read,
            Some(("by older".into(), fence_text(&older))),
            "{at:?}"
        );

        // Its answer lost, overtaken by a larger fence before the retry:
        // the older write landed, so it may not be called stale.
        let name = n("overtaken");
        let (other, nn, fence) = (at.clone(), name.clone(), newer.fence());
        let landed_with = older.fence().text();
        let overtake: Between = Box::pin(async move {
            let landed = other.read(&nn).await;
            let want = Some(("by older".to_string(), Some(landed_with)));
            assert_eq!(
                landed, want,
                "the older put landed before its answer was lost"
            );
            other
                .guarded_under(&nn, "by newer", fence, &[])
                .await
                .expect("the newer writer is accepted");
        });
        let lossy = losing(&at, &url, overtake).await;
        let err = lossy
            .guarded_under(&name, "by older", &older, &[])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::Unavailable, "{at:?}: {err}");
        assert!(err.stale_detail().is_none(), "{at:?}: {err}");
        assert!(err.message().contains("may have been written"), "{err}");
        let read = at.read(&name).await;
        assert_eq!(
            read,
            Some(("by newer".into(), fence_text(&newer))),
            "{at:?}"
        );

        // object_store makes a put again after a 503 too: a 503 kept from
        // the server, then an attempt that lands and whose answer is lost,
        // then a newer writer: in doubt, never stale. (gcloud-storage makes
        // each request once.)
        if let Store::Azure(_) = at {
            let name = n("busy");
            let (other, nn, fence) = (at.clone(), name.clone(), newer.fence());
            let landed_with = older.fence().text();
            let overtake: Between = Box::pin(async move {
                let landed = other.read(&nn).await;
                let want = Some(("by older".to_string(), Some(landed_with)));
                assert_eq!(landed, want, "the second attempt landed");
                other
                    .guarded_under(&nn, "by newer", fence, &[])
                    .await
                    .expect("the newer writer is accepted");
            });
            let plan = vec![Some(SERVER_BUSY), None];
            let lossy = planned(&at, &url, overtake, plan).await;
            let err = lossy
                .guarded_under(&name, "by older", &older, &[])
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::Unavailable, "{err}");
            assert!(err.stale_detail().is_none(), "{err}");
            assert!(err.message().contains("may have been written"), "{err}");
            let read = at.read(&name).await;
            assert_eq!(read, Some(("by newer".into(), fence_text(&newer))));
        }

        // A refusal with its answer: stale, and told, the one refusal the
        // store counts for the group, so that neither case above was told.
        let name = n("refused");
        at.guarded_under(&name, "by newer", &newer, &[])
            .await
            .unwrap();
        let err = at
            .guarded_under(&name, "by older", &older, &[])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::Stale, "{at:?}: {err}");
        assert_eq!(err.stale_detail().unwrap().largest, newer.fence().get());
        refusals_counted(&store, &group, 1).await;
    }
}
