//! The wire decoder on any bytes: the frame reader splits them into lines
//! (with a small limit so over-long lines are exercised), and each line is
//! decoded as a request and as a server frame. Nothing may panic; a decoded
//! request must survive encode and decode.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use tinystore::fuzzing::{decode_request, FrameRead, FrameReader, ServerFrame};

/// Runs a future that never waits: the reader is a byte slice, always ready.
/// (No runtime per input, so the fuzzer runs several times faster.)
fn ready<T>(future: impl Future<Output = T>) -> T {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("reading a byte slice waited"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut reader = tokio::io::BufReader::with_capacity(16, data);
    let mut frames = FrameReader::new(256);
    loop {
        match ready(frames.next(&mut reader)) {
            Ok(FrameRead::Line(line)) => {
                assert!(line.len() <= 256, "a line over the limit was returned");
                if let Ok(frame) = decode_request(&line) {
                    let again = decode_request(frame.encode().as_bytes());
                    assert_eq!(again.ok(), Some(frame));
                }
                let _ = ServerFrame::decode(&line);
            }
            Ok(FrameRead::TooLong(n)) => assert!(n > 256, "a line of {n} bytes was skipped"),
            Ok(FrameRead::End) | Err(_) => break,
        }
    }
});
