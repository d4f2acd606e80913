//! The guard on Google Cloud Storage (gcloud-storage's client) and Azure
//! Blob Storage (object_store's), against real emulators:
//! fake-gcs-server at `$TINYSTORE_GCS_URL` (bucket `tinystore`) and Azurite
//! at `$TINYSTORE_AZURE_URL` (container `tinystore`), which
//! tests/guards/with-gcs.sh and with-azurite.sh start. Each case runs on
//! both. Without a variable its store's cases skip, unless
//! `TINYSTORE_REQUIRE_GCS=1` or `TINYSTORE_REQUIRE_AZURE=1` (as `make test`
//! sets), where they fail.
#![cfg(all(feature = "guard-gcs", feature = "guard-azure"))]

use gcloud_storage::client::{Client as GcsClient, ClientConfig};
use gcloud_storage::http::objects::download::Range;
use gcloud_storage::http::objects::get::GetObjectRequest;
use gcloud_storage::http::objects::upload::{UploadObjectRequest, UploadType};
use gcloud_storage::http::objects::Object;
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::path::Path;
use object_store::{
    Attribute, Attributes, ClientOptions, ObjectStore, PutOptions, PutPayload, RetryConfig,
};
use std::sync::Arc;
use std::time::Duration;
use tinystore::guard::{azure, gcs};
use tinystore::{Code, Fence};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Azurite's well-known development account key.
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// One store's client, as the tests use it.
#[derive(Clone)]
pub(crate) enum Store {
    Gcs(Arc<GcsClient>),
    Azure(Arc<dyn ObjectStore>),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Store::Gcs(_) => "Gcs",
            Store::Azure(_) => "Azure",
        })
    }
}

pub(crate) fn gcs_at(url: &str) -> Store {
    let config = ClientConfig {
        storage_endpoint: url.to_string(),
        ..ClientConfig::default().anonymous()
    };
    Store::Gcs(Arc::new(GcsClient::new(config)))
}

/// No retries, short timeouts: a server that is gone is told at once.
pub(crate) fn azure_at(url: &str) -> Store {
    let options = ClientOptions::new()
        .with_allow_http(true)
        .with_timeout(Duration::from_secs(5));
    let retry = RetryConfig {
        max_retries: 0,
        retry_timeout: Duration::from_secs(2),
        ..RetryConfig::default()
    };
    let client = MicrosoftAzureBuilder::new()
        .with_account("devstoreaccount1")
        .with_access_key(AZURITE_KEY)
        .with_endpoint(url.to_string())
        .with_container_name("tinystore")
        .with_client_options(options)
        .with_retry(retry)
        .build()
        .unwrap();
    Store::Azure(Arc::new(client))
}

/// The stores whose servers are running, with their URLs.
pub(crate) fn stores() -> Vec<(Store, String)> {
    let mut found = Vec::new();
    for (var, require) in [
        ("TINYSTORE_GCS_URL", "TINYSTORE_REQUIRE_GCS"),
        ("TINYSTORE_AZURE_URL", "TINYSTORE_REQUIRE_AZURE"),
    ] {
        match std::env::var(var) {
            Ok(url) if var.contains("GCS") => found.push((gcs_at(&url), url)),
            Ok(url) => found.push((azure_at(&url), url)),
            Err(_) => {
                assert!(
                    std::env::var(require).as_deref() != Ok("1"),
                    "{var} is not set: run under tests/guards/with-gcs.sh and with-azurite.sh"
                );
                eprintln!("skipped: {var} is not set");
            }
        }
    }
    found
}

impl Store {
    pub(crate) fn key(&self) -> &'static str {
        match self {
            Store::Gcs(_) => "tinystore-fence",
            Store::Azure(_) => "tinystore_fence",
        }
    }

    /// The guard's resource for the object `name`: the GCS guard names the
    /// bucket, the Azure guard the path alone.
    pub(crate) fn resource(&self, name: &str) -> String {
        match self {
            Store::Gcs(_) => format!("tinystore/{name}"),
            Store::Azure(_) => name.to_string(),
        }
    }

    /// A guarded put of `body` with `metadata` of the caller's.
    pub(crate) async fn guarded(
        &self,
        name: &str,
        body: &str,
        fence: u128,
        metadata: &[(&str, &str)],
    ) -> tinystore::Result<()> {
        let fence = Fence::from_u128(fence);
        self.guarded_under(name, body, fence, metadata).await
    }

    /// [`Store::guarded`] under a fence or a lease (told of a refusal).
    pub(crate) async fn guarded_under(
        &self,
        name: &str,
        body: &str,
        fence: impl Into<tinystore::guard::Under<'_>>,
        metadata: &[(&str, &str)],
    ) -> tinystore::Result<()> {
        match self {
            Store::Gcs(client) => {
                let object = Object {
                    name: name.to_string(),
                    metadata: Some(
                        metadata
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect(),
                    ),
                    ..Object::default()
                };
                gcs::upload_object(client, "tinystore", &object, body, fence)
                    .await
                    .map(drop)
            }
            Store::Azure(client) => {
                let mut attributes = Attributes::new();
                for (k, v) in metadata {
                    attributes.insert(
                        Attribute::Metadata(k.to_string().into()),
                        v.to_string().into(),
                    );
                }
                let payload = PutPayload::from(body.to_string());
                azure::put(&**client, &Path::from(name), payload, attributes, fence)
                    .await
                    .map(drop)
            }
        }
    }

    /// A put without the guard.
    pub(crate) async fn plain(&self, name: &str, body: &str, metadata: &[(&str, &str)]) {
        match self {
            Store::Gcs(client) => {
                let object = Object {
                    name: name.to_string(),
                    metadata: Some(
                        metadata
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect(),
                    ),
                    ..Object::default()
                };
                let request = UploadObjectRequest {
                    bucket: "tinystore".into(),
                    ..UploadObjectRequest::default()
                };
                let upload = UploadType::Multipart(Box::new(object));
                client
                    .upload_object(&request, body.to_string(), &upload)
                    .await
                    .unwrap();
            }
            Store::Azure(client) => {
                let mut attributes = Attributes::new();
                for (k, v) in metadata {
                    attributes.insert(
                        Attribute::Metadata(k.to_string().into()),
                        v.to_string().into(),
                    );
                }
                let opts = PutOptions {
                    attributes,
                    ..PutOptions::default()
                };
                client
                    .put_opts(&Path::from(name), body.to_string().into(), opts)
                    .await
                    .unwrap();
            }
        }
    }

    /// An object's body and fence metadata, or `None` when it is absent.
    pub(crate) async fn read(&self, name: &str) -> Option<(String, Option<String>)> {
        match self {
            Store::Gcs(client) => {
                let request = GetObjectRequest {
                    bucket: "tinystore".into(),
                    object: name.to_string(),
                    ..GetObjectRequest::default()
                };
                let object = match client.get_object(&request).await {
                    Ok(object) => object,
                    Err(gcloud_storage::http::Error::Response(e)) if e.code == 404 => return None,
                    Err(e) => panic!("{e}"),
                };
                let body = client
                    .download_object(&request, &Range::default())
                    .await
                    .unwrap();
                let fence = object.metadata.and_then(|m| m.get(self.key()).cloned());
                Some((String::from_utf8(body).unwrap(), fence))
            }
            Store::Azure(client) => {
                let got = match client.get(&Path::from(name)).await {
                    Ok(got) => got,
                    Err(object_store::Error::NotFound { .. }) => return None,
                    Err(e) => panic!("{e}"),
                };
                let key = Attribute::Metadata(self.key().into());
                let fence = got.attributes.get(&key).map(|v| v.to_string());
                let body = got.bytes().await.unwrap();
                Some((String::from_utf8(body.to_vec()).unwrap(), fence))
            }
        }
    }
}

fn name(test: &str) -> String {
    format!("rs-{test}-{}", std::process::id())
}

fn fence_text(n: u128) -> Option<String> {
    Some(Fence::from_u128(n).text())
}

#[tokio::test]
async fn equal_and_larger_are_put_and_smaller_is_stale_writing_nothing() {
    for (store, _) in stores() {
        let n = name("order");
        store.guarded(&n, "by 7", 7, &[]).await.unwrap();
        store.guarded(&n, "by 7 again", 7, &[]).await.unwrap();
        store
            .guarded(&n, "by 9", 9, &[("owner", "nine")])
            .await
            .unwrap();
        let err = store.guarded(&n, "late", 8, &[]).await.unwrap_err();
        assert_eq!(err.code(), Code::Stale, "{store:?}: {err}");
        let stale = err.stale_detail().unwrap();
        assert_eq!((stale.fence, stale.largest), (8, 9), "{store:?}");
        assert!(
            stale.resource.ends_with(&n),
            "{store:?}: {}",
            stale.resource
        );
        let read = store.read(&n).await.unwrap();
        assert_eq!(read, ("by 9".into(), fence_text(9)), "{store:?}");
    }
}

#[tokio::test]
async fn an_object_written_without_the_guard_is_taken_over() {
    for (store, _) in stores() {
        let n = name("plain");
        store.plain(&n, "plain", &[]).await;
        store.guarded(&n, "guarded", 3, &[]).await.unwrap();
        assert_eq!(
            store.read(&n).await.unwrap(),
            ("guarded".into(), fence_text(3))
        );
        let err = store.guarded(&n, "late", 2, &[]).await.unwrap_err();
        assert_eq!(err.code(), Code::Stale, "{store:?}: {err}");
    }
}

#[tokio::test]
async fn a_hand_edited_fence_is_corrupt_and_nothing_is_written() {
    for (store, _) in stores() {
        let n = name("corrupt");
        store.plain(&n, "edited", &[(store.key(), "seven")]).await;
        let err = store.guarded(&n, "v", 7, &[]).await.unwrap_err();
        assert_eq!(err.code(), Code::Corrupt, "{store:?}: {err}");
        assert!(err.message().contains("seven"), "{store:?}: {err}");
        let read = store.read(&n).await.unwrap();
        assert_eq!(read, ("edited".into(), Some("seven".into())), "{store:?}");
    }
}

#[tokio::test]
async fn the_guards_own_metadata_key_and_an_empty_name_are_invalid() {
    for (store, _) in stores() {
        let n = name("own-key");
        for key in ["tinystore-fence", "Tinystore_Fence"] {
            let err = store.guarded(&n, "v", 1, &[(key, "1")]).await.unwrap_err();
            assert_eq!(err.code(), Code::Invalid, "{store:?}: {err}");
            assert!(err.message().contains(key), "{store:?}: {err}");
        }
        assert_eq!(store.read(&n).await, None, "{store:?}");
        let err = store.guarded("", "v", 1, &[]).await.unwrap_err();
        assert_eq!(err.code(), Code::Invalid, "{store:?}: {err}");
    }
}

/// A loopback proxy in front of `upstream` that, before it forwards the
/// first request whose head starts with `trigger`, lets `between` run: a
/// writer that comes between the guard's read and its put, on the wire.
/// When `between` gives `false` the server is gone from then on: that
/// request and every later one with `trigger` is dropped with its
/// connection, unanswered.
pub(crate) async fn racing_proxy<F>(upstream: String, trigger: &'static [u8], between: F) -> String
where
    F: std::future::Future<Output = bool> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let between = Arc::new(tokio::sync::Mutex::new(Some(Box::pin(between))));
    let gone = Arc::new(std::sync::atomic::AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((mut down, _)) = listener.accept().await {
            let mut up = TcpStream::connect(&upstream).await.unwrap();
            let (between, gone) = (between.clone(), gone.clone());
            tokio::spawn(async move {
                let (mut down_read, mut down_write) = down.split();
                let (mut up_read, mut up_write) = up.split();
                let requests = async {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        let n = down_read.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        if buf[..n].starts_with(trigger) {
                            if let Some(writer) = between.lock().await.take() {
                                if !writer.await {
                                    gone.store(true, std::sync::atomic::Ordering::SeqCst);
                                }
                            }
                            if gone.load(std::sync::atomic::Ordering::SeqCst) {
                                break; // the server is gone from here on: nothing is forwarded
                            }
                        }
                        if up_write.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = up_write.shutdown().await;
                };
                let answers = async {
                    let _ = tokio::io::copy(&mut up_read, &mut down_write).await;
                    let _ = down_write.shutdown().await;
                };
                tokio::join!(requests, answers);
            });
        }
    });
    address.to_string()
}

/// `store` seen through a proxy that lets a writer of fence `between` in
/// just before the guard's first put to `name`.
pub(crate) async fn racing(store: &Store, url: &str, name: &str, between: u128) -> Store {
    let (scheme_host, rest) = url.split_at(url.find("://").unwrap() + 3);
    let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
    let other = store.clone();
    let n = name.to_string();
    let writer = async move {
        other
            .guarded(&n, "between", between, &[])
            .await
            .expect("the writer in between is accepted");
        true
    };
    let (trigger, proxied): (&'static [u8], fn(&str) -> Store) = match store {
        Store::Gcs(_) => (b"POST /upload/", gcs_at),
        Store::Azure(_) => (b"PUT /", azure_at),
    };
    let proxy = racing_proxy(host.to_string(), trigger, writer).await;
    let url = if path.is_empty() {
        format!("{scheme_host}{proxy}")
    } else {
        format!("{scheme_host}{proxy}/{path}")
    };
    proxied(&url)
}

/// `store` seen through a proxy that answers the guard's read and is gone
/// when the put comes: the server lost in the middle of the guarded write.
async fn gone_at_put(store: &Store, url: &str) -> Store {
    let (scheme_host, rest) = url.split_at(url.find("://").unwrap() + 3);
    let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
    let (trigger, proxied): (&'static [u8], fn(&str) -> Store) = match store {
        Store::Gcs(_) => (b"POST /upload/", gcs_at),
        Store::Azure(_) => (b"PUT /", azure_at),
    };
    let proxy = racing_proxy(host.to_string(), trigger, async { false }).await;
    proxied(format!("{scheme_host}{proxy}/{path}").trim_end_matches('/'))
}

#[tokio::test]
async fn the_server_gone_between_the_read_and_the_put_is_unavailable_writing_nothing() {
    for (store, url) in stores() {
        for (test, first) in [("cut-new", None), ("cut-old", Some(5))] {
            let n = name(test);
            if let Some(fence) = first {
                store.guarded(&n, "first", fence, &[]).await.unwrap();
            }
            let cut = gone_at_put(&store, &url).await;
            let err = cut.guarded(&n, "lost", 7, &[]).await.unwrap_err();
            assert_eq!(err.code(), Code::Unavailable, "{store:?} {test}: {err}");
            let read = store.read(&n).await;
            let before = first.map(|f| ("first".to_string(), fence_text(f)));
            assert_eq!(read, before, "{store:?} {test}");
        }
    }
}

#[tokio::test]
async fn a_writer_between_the_read_and_the_put_is_seen_on_the_second_read() {
    for (store, url) in stores() {
        for (test, first) in [("race-new", None), ("race-old", Some(5))] {
            let n = name(test);
            if let Some(fence) = first {
                store.guarded(&n, "first", fence, &[]).await.unwrap();
            }
            let late = racing(&store, &url, &n, 9).await;
            let err = late.guarded(&n, "late", 7, &[]).await.unwrap_err();
            assert_eq!(err.code(), Code::Stale, "{store:?} {test}: {err}");
            assert_eq!(err.stale_detail().unwrap().largest, 9);
            let read = store.read(&n).await.unwrap();
            assert_eq!(read, ("between".into(), fence_text(9)), "{store:?} {test}");
            // A larger fence after a writer in between is put on the second read.
            let later = racing(&store, &url, &n, 10).await;
            later.guarded(&n, "after", 11, &[]).await.unwrap();
            let read = store.read(&n).await.unwrap();
            assert_eq!(read, ("after".into(), fence_text(11)), "{store:?} {test}");
        }
    }
}

#[tokio::test]
async fn the_server_gone_is_unavailable_with_the_clients_error() {
    if stores().is_empty() {
        return;
    }
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let gcs_gone = gcs_at(&format!("http://127.0.0.1:{port}"));
    let azure_gone = azure_at(&format!("http://127.0.0.1:{port}/devstoreaccount1"));
    for gone in [gcs_gone, azure_gone] {
        let err = gone.guarded(&name("gone"), "v", 1, &[]).await.unwrap_err();
        assert_eq!(err.code(), Code::Unavailable, "{gone:?}: {err}");
        let source = std::error::Error::source(&err).expect("the client's error");
        let theirs = source.downcast_ref::<object_store::Error>().is_some()
            || source
                .downcast_ref::<gcloud_storage::http::Error>()
                .is_some();
        assert!(theirs, "{gone:?}: {source}");
    }
}

#[tokio::test]
async fn an_azure_caller_that_may_only_read_is_unauthorized_and_nothing_is_written() {
    let (Ok(url), Ok(sas)) = (
        std::env::var("TINYSTORE_AZURE_URL"),
        std::env::var("TINYSTORE_AZURE_READ_SAS"),
    ) else {
        assert!(
            std::env::var("TINYSTORE_REQUIRE_AZURE").as_deref() != Ok("1"),
            "TINYSTORE_AZURE_URL or TINYSTORE_AZURE_READ_SAS is not set: run under tests/guards/with-azurite.sh"
        );
        return;
    };
    let store = azure_at(&url);
    let n = name("read-only");
    store.guarded(&n, "first", 5, &[]).await.unwrap();
    let reader = MicrosoftAzureBuilder::new()
        .with_account("devstoreaccount1")
        .with_config(AzureConfigKey::SasKey, sas)
        .with_endpoint(url.clone())
        .with_container_name("tinystore")
        .with_client_options(ClientOptions::new().with_allow_http(true))
        .build()
        .unwrap();
    let err = azure::put(
        &reader,
        &Path::from(n.as_str()),
        "late".into(),
        Attributes::new(),
        Fence::from_u128(7),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    assert!(std::error::Error::source(&err).is_some(), "{err}");
    let read = store.read(&n).await.unwrap();
    assert_eq!(read, ("first".into(), fence_text(5)));
}
