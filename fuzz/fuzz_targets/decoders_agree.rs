//! The wire's two request decoders on any line: the quick one (the common
//! requests, read in one pass) may decline a line, but whatever it takes it
//! must read exactly as the careful one does (`decode_request` tries the
//! quick one first, so a disagreement would change what the server does).

#![no_main]

use libfuzzer_sys::fuzz_target;
use tinystore::fuzzing::{decode_careful, decode_quick};

fuzz_target!(|line: &[u8]| {
    if let Some(quick) = decode_quick(line) {
        assert_eq!(
            decode_careful(line).ok(),
            Some(quick),
            "the quick decoder took a line the careful one reads otherwise"
        );
    }
});
