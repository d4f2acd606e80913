//! The kit from plain `#[test]` functions.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;
use tinystore::testing::blocking::TestStore;
use tinystore::Code;

#[test]
fn expire_and_advance_from_blocking_code() {
    for kit in [TestStore::new().unwrap(), TestStore::served().unwrap()] {
        let jobs = kit.locks("jobs");
        let a = jobs.acquire("report").unwrap();
        kit.expire(&a).unwrap();
        assert_eq!(a.lost_reason().unwrap().code(), Code::LeaseLost);
        let b = jobs.ttl(Duration::from_secs(1)).acquire("report").unwrap();
        assert!(b.fence() > a.fence());
        kit.advance(Duration::from_secs(2)).unwrap();
        assert!(b.wait_lost(Duration::from_secs(10)).is_some());
        assert_eq!(kit.expire_key("jobs", "report").unwrap(), 0);
        kit.close().unwrap();
    }
}

#[test]
fn a_failing_test_still_removes_its_store() {
    let mut dir = None;
    let failed = catch_unwind(AssertUnwindSafe(|| {
        let kit = TestStore::served().unwrap();
        dir = Some(kit.dir().to_path_buf());
        let _held = kit.locks("jobs").acquire("a").unwrap();
        panic!("the test failed");
    }));
    assert!(failed.is_err());
    let dir = dir.unwrap();
    assert!(!dir.exists(), "{} was removed", dir.display());
}
