//! The wire decoder on any bytes: the frame reader splits them into lines
//! (with a small limit so over-long lines are exercised), and each line is
//! decoded as a request and as a server frame. Nothing may panic; a decoded
//! request must survive encode and decode.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tinystore::wire::{decode_request, FrameRead, FrameReader, ServerFrame};

fuzz_target!(|data: &[u8]| {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let mut reader = tokio::io::BufReader::with_capacity(16, data);
        let mut frames = FrameReader::new(256);
        loop {
            match frames.next(&mut reader).await {
                Ok(FrameRead::Line(line)) => {
                    if let Ok(frame) = decode_request(&line) {
                        let again = decode_request(frame.encode().as_bytes());
                        assert_eq!(again.ok(), Some(frame));
                    }
                    let _ = ServerFrame::decode(&line);
                }
                Ok(FrameRead::TooLong(_)) => {}
                Ok(FrameRead::End) | Err(_) => break,
            }
        }
    });
});
