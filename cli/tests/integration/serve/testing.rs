//! `serve --testing`: a served test store, which says so in its log, its
//! `status` and its metrics, and answers the test kit's controls from
//! another process; a store served without the flag refuses them.

use super::metrics::{metrics_addr, scrape};
use crate::support::server::*;
use std::time::Duration;
use tinystore::{testing, Code, Store};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_test_server_says_so_and_obeys_the_kit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let served = Served::start(&dir, &["--testing", "--metrics", "127.0.0.1:0"]);
    assert!(
        served.log().contains("a test store (--testing)"),
        "{}",
        served.log()
    );
    let figures = scrape(&metrics_addr(&served));
    assert_eq!(figures.get("tinystore_testing"), Some(&1.0), "{figures:?}");
    let human = tinystore_ok(&["status", &served.address()]);
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human.contains("testing") && human.contains("a test store"),
        "{human}"
    );
    let json = tinystore_ok(&["status", &served.address(), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["testing"], true, "{json}");
    runtime().block_on(async {
        let a = Store::connect(&served.address()).await.unwrap();
        let b = Store::connect(&served.address()).await.unwrap();
        let held = a.locks("jobs").acquire("report").await.unwrap();
        testing::expire(&held).await.unwrap();
        assert_eq!(held.lost_reason().unwrap().code(), Code::LeaseLost);
        let next = b.locks("jobs").acquire("report").await.unwrap();
        assert!(next.fence() > held.fence());
        testing::advance(&b, Duration::from_secs(3600))
            .await
            .unwrap();
        next.lost().await;
    });
}

#[test]
fn a_server_without_the_flag_refuses_the_kit_and_says_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let served = Served::start(&dir, &[]);
    assert!(!served.log().contains("test store"), "{}", served.log());
    let json = tinystore_ok(&["status", &served.address(), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(json.get("testing").is_none(), "{json}");
    runtime().block_on(async {
        let store = Store::connect(&served.address()).await.unwrap();
        let held = store.locks("jobs").acquire("report").await.unwrap();
        let err = testing::expire(&held).await.unwrap_err();
        assert_eq!(err.code(), Code::Invalid);
        assert!(
            err.to_string().contains("tinystore serve --testing"),
            "{err}"
        );
        assert!(held.is_held());
    });
}

#[test]
fn the_kit_spoken_by_hand_as_the_wire_page_shows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &["--testing"]);
    let mut holder = Raw::unix(&served.socket(), true);
    let mut tester = Raw::unix(&served.socket(), true);
    let held = holder.ask(r#"{"id":1,"op":"acquire","name":"jobs","key":"report"}"#);
    let lease = held["lease"].as_str().unwrap();
    let expired = tester.ask(&format!(r#"{{"id":21,"op":"expire","lease":"{lease}"}}"#));
    assert_eq!(expired["ok"], true, "{expired}");
    let lost = holder.next().unwrap();
    assert_eq!(lost["event"], "lost", "{lost}");
    let again = tester.ask(&format!(r#"{{"id":22,"op":"expire","lease":"{lease}"}}"#));
    assert_eq!(again["error"]["code"], "lease_lost", "{again}");
    let bad = tester.ask(r#"{"id":23,"op":"expire","lease":"nope"}"#);
    assert_eq!(bad["error"]["code"], "invalid", "{bad}");

    holder.ask(r#"{"id":2,"op":"acquire","name":"jobs","key":"report","ttl_ms":5000}"#);
    let by_key = tester.ask(r#"{"id":24,"op":"expire_key","name":"jobs","key":"report"}"#);
    assert_eq!(by_key["expired"], 1, "{by_key}");
    assert_eq!(holder.next().unwrap()["event"], "lost");

    holder.ask(r#"{"id":3,"op":"acquire","name":"jobs","key":"report","ttl_ms":5000}"#);
    let advanced = tester.ask(r#"{"id":20,"op":"advance","ms":60000}"#);
    assert_eq!(advanced["ok"], true, "{advanced}");
    assert_eq!(holder.next().unwrap()["event"], "lost");
}
