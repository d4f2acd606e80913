//! The quick decoder of the common requests agrees with the careful one,
//! which names what is wrong: the same frame, or `None` and the careful
//! one decides.

use crate::wire::quick::decode;
use crate::wire::request::{decode_carefully, decode_request};

#[test]
fn the_quick_path_agrees_with_the_careful_one() {
    let lines = [
        r#"{"id":1,"op":"acquire","name":"n","key":"k"}"#,
        r#"{"id":2,"op":"acquire","name":"n","key":7,"ttl_ms":100,"wait_ms":5}"#,
        r#"{"id":3,"op":"acquire","name":"n","key":"k","limit":3}"#,
        r#"{"op":"try_acquire","id":4,"name":"n","key":"k","ttl_ms":null}"#,
        r#"{"id":5,"op":"release","lease":"12"}"#,
        r#"{"id":6,"op":"renew","lease":"12"}"#,
        r#"{"id":7,"op":"try_acquire","name":"n","key":"k","wait_ms":5}"#,
        r#"{"id":8,"op":"release","lease":"12","name":"n"}"#,
        r#"{"id":9,"op":"acquire","name":"n"}"#,
        r#"{"id":10,"op":"acquire","name":"n","key":"k","extra":1}"#,
        r#"{"id":11,"op":"acquire","name":"n","key":1.5}"#,
        r#"{"id":-1,"op":"release","lease":"1"}"#,
        r#"{"id":12,"op":"renew","lease":12}"#,
        r#"{"id":13,"op":"ping"}"#,
        r#"{"id":14,"op":"acquire","name":"n","key":"k","limit":-1}"#,
        r#"{"id":15,"op":"acquire","name":"n\u00e9","key":"k"}"#,
        r#"{"id":16,"op":"acquire","name":"n","key":"k","limit":null}"#,
        r#"{"id":17,"op":"acquire","name":"n","key":"k","wait_ms":null}"#,
        r#"{"id":18,"id":19,"op":"acquire","name":"n","key":"k"}"#,
        r#"{"id":20,"op":"acquire","name":"n","key":"k","key":"j"}"#,
    ];
    for line in lines {
        let careful = decode_carefully(line.as_bytes()).ok();
        if let Some(frame) = decode(line.as_bytes()) {
            assert_eq!(Some(frame), careful, "{line}");
        }
        assert_eq!(decode_request(line.as_bytes()).ok(), careful, "{line}");
    }
    assert!(
        decode(lines[0].as_bytes()).is_some(),
        "the common case is quick"
    );
    assert!(decode(lines[4].as_bytes()).is_some(), "release is quick");
    for refused in &lines[16..] {
        assert!(decode_request(refused.as_bytes()).is_err(), "{refused}");
    }
}
