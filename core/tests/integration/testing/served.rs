//! The kit on a test store served in this process: the controls and the
//! loss travel the wire.

use std::time::Duration;
use tinystore::testing::TestStore;
use tinystore::{Code, Store};

#[tokio::test]
async fn expire_reaches_a_holder_on_another_connection() {
    let kit = TestStore::served().await.unwrap();
    let address = kit
        .address()
        .expect("a served kit has an address")
        .to_string();
    assert!(address.starts_with("unix:"), "{address}");
    let other = Store::connect(&address).await.unwrap();
    let a = other.locks("jobs").acquire("report").await.unwrap();
    kit.expire(&a).await.unwrap();
    let lost = a
        .lost_reason()
        .expect("expire returns once the holder was told");
    assert_eq!(lost.code(), Code::LeaseLost);
    let b = kit.locks("jobs").acquire("report").await.unwrap();
    assert!(b.fence() > a.fence());
    let failed = a.release().await.unwrap_err();
    assert_eq!(failed.code(), Code::LeaseLost, "{failed}");
}

#[tokio::test]
async fn advance_and_expire_key_over_the_wire() {
    let kit = TestStore::served().await.unwrap();
    let held = kit
        .locks("jobs")
        .ttl(Duration::from_secs(5))
        .acquire("a")
        .await
        .unwrap();
    let other = kit.locks("jobs").acquire("b").await.unwrap();
    kit.advance(Duration::from_secs(6)).await.unwrap();
    held.lost().await;
    assert!(other.is_held(), "a 15 s lease outlives 6 s");
    assert_eq!(kit.expire_key("jobs", "b").await.unwrap(), 1);
    other.lost().await;
    assert!(kit.status().await.unwrap().testing);
    let dir = kit.dir().to_path_buf();
    kit.close().await.unwrap();
    assert!(!dir.exists());
}

#[tokio::test]
async fn dropping_a_served_kit_removes_its_directory() {
    let kit = TestStore::served().await.unwrap();
    let dir = kit.dir().to_path_buf();
    drop(kit);
    assert!(!dir.exists(), "{} was removed", dir.display());
}
