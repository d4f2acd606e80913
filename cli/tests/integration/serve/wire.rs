//! The wire spoken by hand, as docs/wire.md shows it: cancelling a waiting
//! acquire, acquires queued in the order sent, and `lost` events.

use crate::support::server::*;

#[test]
fn a_waiting_acquire_can_be_cancelled_and_acquires_queue_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut holder = Raw::unix(&served.socket(), true);
    let held = holder.ask(r#"{"id":1,"op":"acquire","name":"s","key":42}"#);
    assert_eq!(held["granted"], true, "{held}");

    let mut waiter = Raw::unix(&served.socket(), true);
    waiter.send_bytes(br#"{"id":10,"op":"acquire","name":"s","key":42}"#);
    waiter.send_bytes(br#"{"id":11,"op":"acquire","name":"s","key":42}"#);
    waiter.send_bytes(br#"{"id":12,"op":"acquire","name":"s","key":42}"#);
    let cancel = waiter.ask(r#"{"id":13,"op":"cancel","target":11}"#);
    assert_eq!(cancel["cancelled"], true, "{cancel}");
    let cancelled = waiter.next().unwrap();
    assert_eq!(cancelled["id"], 11, "{cancelled}");
    assert_eq!(cancelled["error"]["code"], "timeout", "{cancelled}");
    let again = waiter.ask(r#"{"id":14,"op":"cancel","target":11}"#);
    assert_eq!(again["cancelled"], false, "{again}");

    // Released, the key goes to 10 (sent first), then to 12.
    let lease = held["lease"].as_str().unwrap();
    let fence_1: u128 = held["fence"].as_str().unwrap().parse().unwrap();
    let released = holder.ask(&format!(r#"{{"id":2,"op":"release","lease":"{lease}"}}"#));
    assert_eq!(released["ok"], true, "{released}");
    let first = waiter.next().unwrap();
    assert_eq!(first["id"], 10, "{first}");
    let fence_10: u128 = first["fence"].as_str().unwrap().parse().unwrap();
    assert!(fence_10 > fence_1);
    let lease_10 = first["lease"].as_str().unwrap();
    waiter.send_bytes(format!(r#"{{"id":15,"op":"release","lease":"{lease_10}"}}"#).as_bytes());
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let frame = waiter.next().unwrap();
        seen.push(frame["id"].as_u64().unwrap());
        if frame["id"] == 12 {
            let fence_12: u128 = frame["fence"].as_str().unwrap().parse().unwrap();
            assert!(fence_12 > fence_10);
        }
    }
    seen.sort();
    assert_eq!(seen, vec![12, 15]);
    let status = holder.ask(r#"{"id":3,"op":"status"}"#);
    assert_eq!(
        status["status"]["waiting"],
        serde_json::json!([]),
        "{status}"
    );
}

#[test]
fn a_lease_not_renewed_ends_with_a_lost_event_after_its_reply() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start(&tmp.path().join("store"), &[]);
    let mut raw = Raw::unix(&served.socket(), true);
    raw.send_bytes(br#"{"id":1,"op":"acquire","name":"s","key":"k","ttl_ms":30}"#);
    let reply = raw.next().unwrap();
    assert_eq!(reply["id"], 1, "{reply}");
    let lease = reply["lease"].as_str().unwrap().to_string();
    let event = raw.next().unwrap();
    assert_eq!(event["event"], "lost", "{event}");
    assert_eq!(event["lease"], lease.as_str());
    assert_eq!(event["code"], "lease_lost");
    assert!(
        event["message"].as_str().unwrap().contains("s/k"),
        "{event}"
    );
    let renew = raw.ask(&format!(r#"{{"id":2,"op":"renew","lease":"{lease}"}}"#));
    assert_eq!(renew["error"]["code"], "lease_lost", "{renew}");
    // A renewed lease outlives its TTL.
    let kept = raw.ask(r#"{"id":3,"op":"acquire","name":"s","key":"kept","ttl_ms":200}"#);
    let kept = kept["lease"].as_str().unwrap().to_string();
    for i in 0..16 {
        std::thread::sleep(std::time::Duration::from_millis(25));
        let renew = raw.ask(&format!(
            r#"{{"id":{},"op":"renew","lease":"{kept}"}}"#,
            10 + i
        ));
        assert_eq!(renew["ok"], true, "{renew}");
    }
}
