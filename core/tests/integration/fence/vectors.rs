//! Every case, pair and invalid string of vectors/fences.json, both ways.

use serde_json::Value;
use tinystore::{Code, Fence};

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/fences.json");
    let text = std::fs::read_to_string(path).expect("vectors/fences.json is readable");
    serde_json::from_str(&text).expect("vectors/fences.json is JSON")
}

fn text_of<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} is a string in {v}"))
}

#[test]
fn each_case_converts_both_ways() {
    let cases = vectors()["cases"].as_array().unwrap().clone();
    assert!(cases.len() >= 10, "the vectors hold the seed's cases");
    for case in cases {
        let value: u128 = text_of(&case, "value").parse().unwrap();
        let epoch: u64 = text_of(&case, "epoch").parse().unwrap();
        let count: u64 = text_of(&case, "count").parse().unwrap();
        let text = text_of(&case, "text");

        let fence = Fence::parse(text_of(&case, "value")).unwrap();
        assert_eq!(fence.get(), value, "{case}");
        assert_eq!(fence.epoch(), epoch, "{case}");
        assert_eq!(fence.count(), count, "{case}");
        assert_eq!(fence.text(), text, "{case}");
        assert_eq!(format!("{:040}", fence.get()), text, "{case}");
        assert_eq!(format!("{fence:040}"), text, "{case}");
        assert_eq!(fence.to_string(), text_of(&case, "value"), "{case}");

        assert_eq!(Fence::new(epoch, count), fence, "{case}");
        assert_eq!(Fence::from_u128(value), fence, "{case}");
        assert_eq!(
            text.parse::<Fence>().unwrap(),
            fence,
            "the text form parses back: {case}"
        );
    }
}

#[test]
fn each_ordered_pair_is_less_as_numbers_and_as_texts() {
    let pairs = vectors()["ordered"].as_array().unwrap().clone();
    assert!(!pairs.is_empty());
    for pair in pairs {
        let a = Fence::parse(pair[0].as_str().unwrap()).unwrap();
        let b = Fence::parse(pair[1].as_str().unwrap()).unwrap();
        assert!(a < b, "{pair}");
        assert!(a.get() < b.get(), "{pair}");
        assert!(a.text() < b.text(), "{pair}");
    }
}

#[test]
fn each_invalid_string_is_refused_with_invalid() {
    let invalid = vectors()["invalid"].as_array().unwrap().clone();
    assert!(invalid.len() >= 10);
    for text in invalid {
        let text = text.as_str().unwrap();
        let err = Fence::parse(text).expect_err(text);
        assert_eq!(err.code(), Code::Invalid, "{text:?}");
        assert!(
            err.message().contains("fence"),
            "the message names a fence: {err}"
        );
    }
}

#[test]
fn the_vectors_copy_matches_the_shared_one_when_present() {
    let shared = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/vectors/fences.json"
    );
    if let Ok(text) = std::fs::read_to_string(shared) {
        let shared: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            without_prose(shared),
            without_prose(vectors()),
            "vectors/fences.json drifted from shared/vectors"
        );
    }
}

/// The vectors' data: every `about` and `note` left out, since the copy's
/// prose speaks to tinystore's own readers.
fn without_prose(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| k != "about" && k != "note")
                .map(|(k, v)| (k, without_prose(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_prose).collect()),
        other => other,
    }
}

#[test]
fn the_largest_fence_round_trips_and_one_more_is_refused() {
    let max = Fence::parse("340282366920938463463374607431768211455").unwrap();
    assert_eq!(max.get(), u128::MAX);
    assert_eq!(max.epoch(), u64::MAX);
    assert_eq!(max.count(), u64::MAX);
    assert_eq!(Fence::parse(&max.text()).unwrap(), max);
    assert_eq!(
        Fence::parse("0340282366920938463463374607431768211455").unwrap(),
        max
    );
}

#[test]
fn fences_serialize_as_decimal_strings() {
    let fence = Fence::new(1, 1);
    assert_eq!(
        serde_json::to_string(&fence).unwrap(),
        "\"18446744073709551617\""
    );
    let back: Fence = serde_json::from_str("\"18446744073709551617\"").unwrap();
    assert_eq!(back, fence);
    assert!(serde_json::from_str::<Fence>("\"-1\"").is_err());
    assert!(serde_json::from_str::<Fence>("17").is_err());
}
