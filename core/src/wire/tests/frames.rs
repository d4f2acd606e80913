//! The wire's frames without sockets: decoding requests (and what is wrong
//! with bad ones), reading lines under a size limit, and replies, events
//! and errors as they travel.

use crate::wire::reply::{WireError, WireWatch};
use crate::wire::{
    decode_request, Event, FrameRead, FrameReader, Op, Reply, RequestFrame, ServerFrame, WireKey,
    WireMode, MAX_FRAME_BYTES,
};
use crate::{Code, Error, Fence, WatchEvent};

#[test]
fn requests_decode_with_their_ids_and_fields() {
    let frame = decode_request(
        br#"{"id":7,"op":"acquire","name":"summaries","key":42,"ttl_ms":500,"wait_ms":10}"#,
    )
    .unwrap();
    assert_eq!(frame.id, Some(7));
    match frame.op {
        Op::Acquire {
            name,
            key,
            limit,
            ttl_ms,
            wait_ms,
            ..
        } => {
            assert_eq!(name, "summaries");
            assert_eq!(key.text(), "42");
            assert_eq!((limit, ttl_ms, wait_ms), (None, Some(500), Some(10)));
        }
        other => panic!("decoded as {other:?}"),
    }
    let hello = decode_request(br#"{"op":"hello","version":1,"token":"t"}"#).unwrap();
    assert_eq!(hello.id, None);
    assert_eq!(
        hello.op,
        Op::Hello {
            version: 1,
            token: Some("t".into())
        }
    );
    let big = decode_request(br#"{"id":18446744073709551615,"op":"ping"}"#).unwrap();
    assert_eq!(big.id, Some(u64::MAX));
}

#[test]
fn an_acquire_carries_its_data_the_quick_way_and_the_careful_way() {
    for line in [
        &br#"{"id":1,"op":"acquire","name":"n","key":"k","data":"h:1 \u00e9"}"#[..],
        br#"{"id":1,"op":"acquire","name":"n","key":"k","weight":1,"limit":2,"data":"h:1 \u00e9"}"#,
        br#"{"id":1,"op":"try_acquire","name":"n","key":"k","data":"h:1 \u00e9"}"#,
    ] {
        let data = match decode_request(line).unwrap().op {
            Op::Acquire { data, .. } | Op::TryAcquire { data, .. } => data,
            other => panic!("decoded as {other:?}"),
        };
        assert_eq!(data.as_deref(), Some("h:1 \u{e9}"));
    }
    let (_, err) =
        decode_request(br#"{"id":1,"op":"acquire","name":"n","key":"k","data":3}"#).unwrap_err();
    assert!(
        err.to_string().contains("\"data\" must be a string, not 3"),
        "{err}"
    );
}

#[test]
fn integer_and_text_keys_are_the_same_key() {
    let a = decode_request(br#"{"id":1,"op":"try_acquire","name":"a","key":42}"#).unwrap();
    let b = decode_request(br#"{"id":1,"op":"try_acquire","name":"a","key":"42"}"#).unwrap();
    let key = |op: Op| match op {
        Op::TryAcquire { key, .. } => key.text(),
        other => panic!("{other:?}"),
    };
    assert_eq!(key(a.op), key(b.op));
}

#[test]
fn bad_requests_say_what_is_wrong_and_keep_the_id_when_it_can_be_read() {
    let cases: &[(&[u8], Option<u64>, &str)] = &[
        (b"{oops", None, "not JSON"),
        (b"[]", None, "must be a JSON object"),
        (br#"{"id":-4,"op":"ping"}"#, None, "\"id\""),
        (br#"{"id":3}"#, Some(3), "no \"op\""),
        (br#"{"id":3,"op":true}"#, Some(3), "\"op\" must be a string"),
        (br#"{"id":3,"op":"fly"}"#, Some(3), "fly"),
        (br#"{"id":3,"op":"renew"}"#, Some(3), "lease"),
        (br#"{"id":3,"op":"ping","x":1}"#, Some(3), "x"),
        (
            br#"{"id":3,"op":"acquire","name":"a","key":"k","ttl_ms":-1}"#,
            Some(3),
            "-1",
        ),
        (br#"{"id":3,"op":"campaign","name":"e"}"#, Some(3), "value"),
        (
            br#"{"id":3,"op":"campaign","name":"e","value":null}"#,
            Some(3),
            "\"value\" must be a string",
        ),
        (
            br#"{"id":3,"op":"campaign","name":"e","value":"v","key":"k"}"#,
            Some(3),
            "key",
        ),
        (br#"{"id":3,"op":"observe"}"#, Some(3), "name"),
    ];
    for (line, id, mentions) in cases {
        let (got_id, err) = decode_request(line).unwrap_err();
        assert_eq!(got_id, *id, "{}", String::from_utf8_lossy(line));
        assert_eq!(err.code(), Code::Invalid);
        assert!(
            err.message().contains(mentions),
            "{:?} does not mention {mentions:?}",
            err.message()
        );
    }
}

#[test]
fn requests_encode_to_what_decodes_back() {
    for op in [
        Op::Hello {
            version: 1,
            token: None,
        },
        Op::Acquire {
            name: "n".into(),
            key: WireKey::from("k"),
            limit: Some(3),
            mode: None,
            weight: Some(2),
            ttl_ms: Some(100),
            wait_ms: None,
            max_hold_ms: Some(60_000),
            data: Some("host-1:42 \"job\"\n".into()),
        },
        Op::TryAcquire {
            name: "n".into(),
            key: WireKey::from("k"),
            limit: None,
            mode: Some(WireMode::Write),
            weight: None,
            ttl_ms: None,
            max_hold_ms: None,
            data: None,
        },
        Op::Release { lease: "9".into() },
        Op::Cancel { target: 4 },
        Op::Campaign {
            name: "scheduler".into(),
            value: "worker-7".into(),
            ttl_ms: Some(300),
            wait_ms: None,
            max_hold_ms: None,
        },
        Op::Resign { lease: "9".into() },
        Op::Leader {
            name: "scheduler".into(),
        },
        Op::Observe {
            name: "scheduler".into(),
        },
        Op::Status {
            limit: None,
            offset: None,
        },
        Op::Status {
            limit: Some(5),
            offset: Some(10),
        },
    ] {
        let frame = RequestFrame { id: Some(5), op };
        let line = frame.encode();
        assert!(!line.contains('\n'));
        assert_eq!(decode_request(line.as_bytes()).unwrap(), frame);
    }
}

#[tokio::test]
async fn lines_over_the_limit_are_skipped_and_the_stream_stays_in_step() {
    let mut input = Vec::new();
    input.extend_from_slice(b"first\r\n");
    input.extend(std::iter::repeat_n(b'x', 100));
    input.extend_from_slice(b"\nsecond\n\nthird-without-newline");
    let mut reader = tokio::io::BufReader::with_capacity(16, &input[..]);
    let mut frames = FrameReader::new(10);
    assert_eq!(
        frames.next(&mut reader).await.unwrap(),
        FrameRead::Line(b"first".to_vec())
    );
    assert_eq!(
        frames.next(&mut reader).await.unwrap(),
        FrameRead::TooLong(100)
    );
    assert_eq!(
        frames.next(&mut reader).await.unwrap(),
        FrameRead::Line(b"second".to_vec())
    );
    assert_eq!(
        frames.next(&mut reader).await.unwrap(),
        FrameRead::Line(Vec::new())
    );
    assert_eq!(frames.next(&mut reader).await.unwrap(), FrameRead::End);
    assert_eq!(MAX_FRAME_BYTES, 64 * 1024);
}

#[tokio::test]
async fn a_stopping_reader_reports_a_long_line_before_its_end_comes() {
    // The peer sends 100 bytes and then nothing (no newline, not closed):
    // the reader says so at once instead of waiting for the rest.
    let (mut peer, ours) = tokio::io::duplex(1024);
    tokio::io::AsyncWriteExt::write_all(&mut peer, &[b'x'; 100])
        .await
        .unwrap();
    let mut reader = tokio::io::BufReader::with_capacity(16, ours);
    let mut frames = FrameReader::stopping(10);
    match frames.next(&mut reader).await.unwrap() {
        FrameRead::TooLong(seen) => assert!(seen > 10 && seen <= 100, "{seen}"),
        other => panic!("{other:?}"),
    }
    // Relaxed, the same reader skips long lines and keeps in step.
    let mut frames = FrameReader::stopping(10);
    frames.relax(1000);
    tokio::io::AsyncWriteExt::write_all(&mut peer, b"\n")
        .await
        .unwrap();
    drop(peer);
    let rest = frames.next(&mut reader).await.unwrap();
    assert!(
        matches!(rest, FrameRead::Line(ref l) if l.iter().all(|&b| b == b'x')),
        "{rest:?}"
    );
}

#[test]
fn fences_travel_as_decimal_strings() {
    let fence = Fence::new(u64::MAX, u64::MAX);
    let reply = Reply {
        granted: Some(true),
        lease: Some("1".into()),
        fence: Some(fence),
        ..Reply::ok(Some(2))
    };
    let line = ServerFrame::Reply(reply.clone()).encode();
    assert!(
        line.contains(&format!("\"fence\":\"{}\"", u128::MAX)),
        "{line}"
    );
    assert_eq!(
        ServerFrame::decode(line.as_bytes()).unwrap(),
        ServerFrame::Reply(reply)
    );
    let bad = br#"{"id":2,"ok":true,"fence":"-1"}"#;
    assert_eq!(ServerFrame::decode(bad).unwrap_err().code(), Code::Internal);
}

#[test]
fn every_code_survives_the_wire_and_unknown_ones_become_internal() {
    for code in Code::ALL {
        let err = Error::new(code, format!("about {code}"));
        let reply = Reply::err(Some(1), &err);
        let line = ServerFrame::Reply(reply).encode();
        let ServerFrame::Reply(back) = ServerFrame::decode(line.as_bytes()).unwrap() else {
            panic!("not a reply: {line}");
        };
        assert_eq!(back.into_result().unwrap_err(), err);
    }
    let odd = WireError {
        code: "exploded".into(),
        message: "m".into(),
    };
    assert_eq!(odd.to_error().code(), Code::Internal);
}

#[test]
fn lost_events_are_told_apart_from_replies() {
    let reason = Error::new(Code::LeaseLost, "ran out");
    let line = ServerFrame::Event(Event::lost("7", &reason)).encode();
    assert_eq!(
        line,
        r#"{"event":"lost","lease":"7","code":"lease_lost","message":"ran out"}"#
    );
    match ServerFrame::decode(line.as_bytes()).unwrap() {
        ServerFrame::Event(Event::Lost { lease, code, .. }) => {
            assert_eq!((lease.as_str(), code.as_str()), ("7", "lease_lost"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn leader_events_say_who_leads_or_null_and_come_back_the_same() {
    let fence = Fence::new(7, 3);
    let leader = crate::Leader {
        value: "worker-7".into(),
        fence,
    };
    let led = ServerFrame::Event(Event::leader(4, Some(leader.clone())));
    assert_eq!(
        led.encode(),
        format!(
            r#"{{"event":"leader","observe":4,"leader":{{"value":"worker-7","fence":"{fence}"}}}}"#
        )
    );
    let nobody = ServerFrame::Event(Event::leader(4, None));
    assert_eq!(
        nobody.encode(),
        r#"{"event":"leader","observe":4,"leader":null}"#
    );
    let ended = ServerFrame::Event(Event::observe_end(4, &Error::new(Code::Limit, "behind")));
    assert_eq!(
        ended.encode(),
        r#"{"event":"observe_end","observe":4,"code":"limit","message":"behind"}"#
    );
    for frame in [led, nobody, ended] {
        assert_eq!(
            ServerFrame::decode(frame.encode().as_bytes()).unwrap(),
            frame
        );
    }
}

#[test]
fn a_leader_reply_tells_nobody_as_null_and_other_replies_leave_it_out() {
    let nobody = Reply {
        leader: Some(None),
        ..Reply::ok(Some(2))
    };
    let line = ServerFrame::Reply(nobody.clone()).encode();
    assert_eq!(line, r#"{"id":2,"ok":true,"leader":null}"#);
    assert_eq!(
        ServerFrame::decode(line.as_bytes()).unwrap(),
        ServerFrame::Reply(nobody)
    );
    let plain = ServerFrame::Reply(Reply::ok(Some(3)));
    assert_eq!(plain.encode(), r#"{"id":3,"ok":true}"#);
    match ServerFrame::decode(plain.encode().as_bytes()).unwrap() {
        ServerFrame::Reply(reply) => assert_eq!(reply.leader, None),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_event_decodes_whether_or_not_its_tag_comes_first() {
    let reason = Error::new(Code::Closed, "shutting down");
    let frame = ServerFrame::Event(Event::WatchEnd {
        watch: 9,
        code: reason.code().to_string(),
        message: reason.message().to_string(),
    });
    let line = frame.encode();
    assert!(line.starts_with(r#"{"event":"watch_end","#), "{line}");
    assert_eq!(ServerFrame::decode(line.as_bytes()).unwrap(), frame);
    // Another writer may put the tag anywhere.
    let reordered = br#"{"watch":9,"code":"closed","message":"shutting down","event":"watch_end"}"#;
    assert_eq!(ServerFrame::decode(reordered).unwrap(), frame);
    // A line that starts as an event but is not one is still refused.
    let bad = br#"{"event":"watch_end","watch":"nine"}"#;
    assert_eq!(ServerFrame::decode(bad).unwrap_err().code(), Code::Internal);
}

#[test]
fn a_watch_event_decodes_to_what_was_encoded() {
    let events = [
        WatchEvent::Granted {
            key: "k\"1".into(),
            fence: Some(Fence::new(3, 9)),
            data: Some("host:1".into()),
        },
        WatchEvent::Queue {
            key: "k".into(),
            length: 2,
        },
        WatchEvent::Lagged { missed: 7 },
    ];
    for event in events {
        let frame = ServerFrame::Event(Event::Watch(WireWatch::new(4, event)));
        let line = frame.encode();
        assert!(line.starts_with(r#"{"event":"watch","watch":4,"#), "{line}");
        assert_eq!(ServerFrame::decode(line.as_bytes()).unwrap(), frame);
    }
    // Its fields wrong, it is refused as before.
    let bad = br#"{"event":"watch","watch":4,"what":"queue","length":"two"}"#;
    assert_eq!(ServerFrame::decode(bad).unwrap_err().code(), Code::Internal);
}
