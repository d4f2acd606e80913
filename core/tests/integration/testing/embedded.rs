//! The kit on an embedded test store.

use std::time::Duration;
use tinystore::testing::{self, TestStore};
use tinystore::Code;

#[tokio::test]
async fn expire_tells_the_holder_and_grants_the_waiter_a_larger_fence() {
    let kit = TestStore::new().await.unwrap();
    let jobs = kit.locks("jobs");
    let a = jobs.acquire("report").await.unwrap();
    let waiter = tokio::spawn({
        let jobs = jobs.clone();
        async move { jobs.acquire("report").await }
    });
    while kit.status().await.unwrap().waiting.is_empty() {
        tokio::task::yield_now().await;
    }
    kit.expire(&a).await.unwrap();
    let lost = a
        .lost_reason()
        .expect("expire returns once the holder was told");
    assert_eq!(lost.code(), Code::LeaseLost);
    assert!(
        lost.to_string().contains("the test kit expired it"),
        "{lost}"
    );
    assert!(!a.is_held());
    let b = waiter.await.unwrap().unwrap();
    assert!(b.fence() > a.fence(), "{} > {}", b.fence(), a.fence());
    let again = kit.expire(&a).await.unwrap_err();
    assert_eq!(again.code(), Code::LeaseLost, "{again}");
    kit.close().await.unwrap();
}

#[tokio::test]
async fn advance_runs_out_exactly_the_leases_whose_ttl_has_passed() {
    let kit = TestStore::new().await.unwrap();
    let short = kit
        .locks("jobs")
        .ttl(Duration::from_secs(10))
        .renew(false)
        .acquire("short")
        .await
        .unwrap();
    let long = kit
        .locks("jobs")
        .ttl(Duration::from_secs(60))
        .renew(false)
        .acquire("long")
        .await
        .unwrap();
    let renewing = kit
        .locks("jobs")
        .ttl(Duration::from_secs(30))
        .acquire("renewing")
        .await
        .unwrap();
    kit.advance(Duration::from_secs(9)).await.unwrap();
    assert!(short.is_held() && long.is_held() && renewing.is_held());
    kit.advance(Duration::from_secs(2)).await.unwrap();
    short.lost().await;
    assert_eq!(short.lost_reason().unwrap().code(), Code::LeaseLost);
    assert!(long.is_held() && renewing.is_held());
    kit.advance(Duration::from_secs(30)).await.unwrap();
    renewing.lost().await;
    assert!(
        !renewing.is_held(),
        "a renewing lease runs out when its ttl passes at once"
    );
    assert!(long.is_held(), "41 s of its 60 s have passed");
    kit.advance(Duration::from_secs(20)).await.unwrap();
    long.lost().await;
    let next = kit
        .locks("jobs")
        .try_acquire("short")
        .await
        .unwrap()
        .unwrap();
    assert!(next.fence() > long.fence());
}

#[tokio::test]
async fn expire_key_ends_every_holder_of_a_key_and_says_how_many() {
    let kit = TestStore::new().await.unwrap();
    let slots = kit.semaphore("slots", 3);
    let p1 = slots.acquire("gpu").await.unwrap();
    let p2 = slots.acquire("gpu").await.unwrap();
    let other = slots.acquire("cpu").await.unwrap();
    assert_eq!(kit.expire_key("slots", "gpu").await.unwrap(), 2);
    p1.lost().await;
    p2.lost().await;
    assert!(other.is_held());
    assert_eq!(kit.expire_key("slots", "gpu").await.unwrap(), 0);
    let bad = kit.expire_key("no spaces", "gpu").await.unwrap_err();
    assert_eq!(bad.code(), Code::Invalid, "{bad}");
}

#[tokio::test]
async fn a_permit_and_a_leadership_expire_too() {
    let kit = TestStore::new().await.unwrap();
    let permit = kit.rw_locks("docs").acquire_read("a").await.unwrap();
    testing::expire(&permit).await.unwrap();
    assert!(!permit.is_held());
    let election = kit.election("primary");
    let first = election.campaign("node-1").await.unwrap();
    kit.expire(&first).await.unwrap();
    assert_eq!(first.lost_reason().unwrap().code(), Code::LeaseLost);
    let second = election.campaign("node-2").await.unwrap();
    assert!(second.fence() > first.fence(), "a new term is larger");
}

#[tokio::test]
async fn status_says_the_store_is_a_test_store_and_close_removes_it() {
    let kit = TestStore::new().await.unwrap();
    assert!(kit.status().await.unwrap().testing);
    let dir = kit.dir().to_path_buf();
    assert!(dir.join("kv.db").exists());
    kit.close().await.unwrap();
    assert!(!dir.exists(), "{} was removed", dir.display());
}

#[tokio::test]
async fn advancing_past_a_hundred_years_is_refused_and_changes_nothing() {
    let kit = TestStore::new().await.unwrap();
    let held = kit.locks("jobs").acquire("a").await.unwrap();
    let years = |n: u64| Duration::from_secs(n * 365 * 24 * 3600);
    let err = kit.advance(years(101)).await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
    assert!(err.to_string().contains("at most 100 years"), "{err}");
    assert!(held.is_held());
    kit.advance(years(60)).await.unwrap();
    held.lost().await;
    let err = kit.advance(years(50)).await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid, "{err}");
    let after = kit
        .locks("jobs")
        .ttl(Duration::from_secs(1))
        .renew(false)
        .acquire("b")
        .await
        .unwrap();
    kit.advance(Duration::from_secs(2)).await.unwrap();
    after.lost().await;
}
