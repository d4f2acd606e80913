//! A store not made for tests refuses the kit's controls, embedded and
//! served, and its leases stay held.

use std::time::Duration;
use tinystore::server::{ServeOptions, Server};
use tinystore::{testing, Code, Store};

const REFUSAL: &str = "this store is not a test store: advance and expire work only on a store \
                       made by tinystore's test kit, or served with `tinystore serve --testing`";

async fn refuses_everything(store: &Store) {
    let lease = store.locks("jobs").acquire("report").await.unwrap();
    let errors = [
        testing::advance(store, Duration::from_secs(60))
            .await
            .unwrap_err(),
        testing::expire(&lease).await.unwrap_err(),
        testing::expire_key(store, "jobs", "report")
            .await
            .unwrap_err(),
    ];
    for err in errors {
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.to_string().contains(REFUSAL), "{err}");
    }
    assert!(lease.is_held());
    assert!(!store.status().await.unwrap().testing);
    lease.release().await.unwrap();
}

#[tokio::test]
async fn an_embedded_store_refuses_the_controls() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    refuses_everything(&store).await;
}

#[tokio::test]
async fn a_server_started_without_testing_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), ServeOptions::default())
        .await
        .unwrap();
    let address = format!("unix:{}", server.socket_path().display());
    let store = Store::connect(&address).await.unwrap();
    refuses_everything(&store).await;
    server.shutdown().await.unwrap();
}
