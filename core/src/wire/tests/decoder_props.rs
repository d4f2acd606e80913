//! Property tests of the wire decoder: any bytes give a frame or an
//! `invalid` error, never a panic; every request survives encode and decode;
//! lines cut into any chunks are read back whole, over-long ones skipped.

use crate::wire::{
    decode_request, FrameRead, FrameReader, Op, RequestFrame, ServerFrame, WireKey, WireMode,
};
use crate::Code;
use proptest::prelude::*;

fn mode() -> impl Strategy<Value = Option<WireMode>> {
    prop::option::of(prop_oneof![Just(WireMode::Read), Just(WireMode::Write)])
}

fn key() -> impl Strategy<Value = WireKey> {
    prop_oneof![
        ".{0,12}".prop_map(WireKey::Text),
        any::<i64>().prop_map(WireKey::Int),
        ((i64::MAX as u64 + 1)..=u64::MAX).prop_map(WireKey::UInt),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let name = "[A-Za-z0-9._:-]{0,10}";
    prop_oneof![
        (any::<u32>(), prop::option::of(".{0,8}"))
            .prop_map(|(version, token)| Op::Hello { version, token }),
        (
            name,
            key(),
            any::<Option<u32>>(),
            mode(),
            any::<Option<u32>>(),
            any::<Option<u64>>(),
            any::<Option<u64>>(),
            any::<Option<u64>>(),
            prop::option::of(".{0,12}")
        )
            .prop_map(
                |(name, key, limit, mode, weight, ttl_ms, wait_ms, max_hold_ms, data)| {
                    Op::Acquire {
                        name,
                        key,
                        limit,
                        mode,
                        weight,
                        ttl_ms,
                        wait_ms,
                        max_hold_ms,
                        data,
                    }
                }
            ),
        (
            name,
            key(),
            any::<Option<u32>>(),
            mode(),
            any::<Option<u32>>(),
            any::<Option<u64>>(),
            any::<Option<u64>>(),
            prop::option::of(".{0,12}")
        )
            .prop_map(
                |(name, key, limit, mode, weight, ttl_ms, max_hold_ms, data)| {
                    Op::TryAcquire {
                        name,
                        key,
                        limit,
                        mode,
                        weight,
                        ttl_ms,
                        max_hold_ms,
                        data,
                    }
                }
            ),
        ".{0,10}".prop_map(|lease| Op::Renew { lease }),
        ".{0,10}".prop_map(|lease| Op::Release { lease }),
        any::<u64>().prop_map(|target| Op::Cancel { target }),
        (any::<Option<u32>>(), any::<Option<u64>>())
            .prop_map(|(limit, offset)| Op::Status { limit, offset }),
        Just(Op::Ping {}),
        (
            name,
            ".{0,12}",
            any::<Option<u64>>(),
            any::<Option<u64>>(),
            any::<Option<u64>>()
        )
            .prop_map(|(name, value, ttl_ms, wait_ms, max_hold_ms)| Op::Campaign {
                name,
                value,
                ttl_ms,
                wait_ms,
                max_hold_ms
            }),
        ".{0,10}".prop_map(|lease| Op::Resign { lease }),
        name.prop_map(|name| Op::Leader { name }),
        name.prop_map(|name| Op::Observe { name }),
    ]
}

/// Bytes that look a little like requests, so that the decoder's deeper
/// paths are reached, and plain noise.
fn noisy_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        (op(), any::<Option<u64>>(), 0usize..40, any::<u8>()).prop_map(|(op, id, at, byte)| {
            let mut line = RequestFrame { id, op }.encode().into_bytes();
            if !line.is_empty() {
                let at = at % line.len();
                line[at] = byte;
            }
            line
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_decode_or_are_invalid(line in noisy_line()) {
        match decode_request(&line) {
            Ok(frame) => {
                let again = decode_request(frame.encode().as_bytes()).map_err(|(_, e)| e);
                prop_assert_eq!(again, Ok(frame));
            }
            Err((_, err)) => {
                prop_assert_eq!(err.code(), Code::Invalid);
                prop_assert!(!err.message().is_empty());
            }
        }
        let _ = ServerFrame::decode(&line);
    }

    #[test]
    fn every_request_round_trips(op in op(), id in any::<Option<u64>>()) {
        let frame = RequestFrame { id, op };
        let line = frame.encode();
        prop_assert!(!line.contains('\n'), "one frame is one line: {}", line);
        let back = decode_request(line.as_bytes()).map_err(|(_, e)| e);
        prop_assert_eq!(back, Ok(frame));
    }

    #[test]
    fn lines_cut_into_any_chunks_read_back_whole(
        lines in prop::collection::vec(prop::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..40), 0..12),
        cuts in prop::collection::vec(1usize..17, 1..8),
        limit in 1usize..32,
    ) {
        let mut stream = Vec::new();
        for line in &lines {
            stream.extend_from_slice(line);
            stream.push(b'\n');
        }
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let read = rt.block_on(async {
            let (mut tx, rx) = tokio::io::duplex(7);
            let chunks: Vec<Vec<u8>> = {
                let mut out = Vec::new();
                let mut rest = &stream[..];
                let mut i = 0;
                while !rest.is_empty() {
                    let n = cuts[i % cuts.len()].min(rest.len());
                    out.push(rest[..n].to_vec());
                    rest = &rest[n..];
                    i += 1;
                }
                out
            };
            let writer = tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                for chunk in chunks {
                    tx.write_all(&chunk).await.unwrap();
                }
            });
            let mut reader = tokio::io::BufReader::with_capacity(5, rx);
            let mut frames = FrameReader::new(limit);
            let mut got = Vec::new();
            loop {
                match frames.next(&mut reader).await.unwrap() {
                    FrameRead::End => break,
                    other => got.push(other),
                }
            }
            writer.await.unwrap();
            got
        });
        let want: Vec<FrameRead> = lines
            .iter()
            .map(|l| {
                // The limit counts every byte before the newline, a `\r` too.
                let text = l.strip_suffix(b"\r").unwrap_or(l);
                if l.len() <= limit { FrameRead::Line(text.to_vec()) } else { FrameRead::TooLong(l.len()) }
            })
            .collect();
        prop_assert_eq!(read.len(), want.len());
        for (r, w) in read.iter().zip(&want) {
            match (r, w) {
                (FrameRead::TooLong(_), FrameRead::TooLong(_)) => {}
                _ => prop_assert_eq!(r, w),
            }
        }
    }
}
