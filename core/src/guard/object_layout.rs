//! Where the object-storage guard keeps a guarded object: one object per
//! fence, under the key, read back by the largest.
//!
//! A guarded write of fence `f` to `key` writes the object
//! `key/tinystore-fence/<f as 40 digits>`; the object a reader sees is the
//! one of the largest fence listed under `key/tinystore-fence/`. Forty
//! digits sort as the numbers do, so a listing's order is the fences'.
//! S3 compares ETags only, and an ETag (a body's MD5) repeats when a body
//! does, so a write made in place with `If-Match` can land over a larger
//! fence after the object went through other bodies and back; here a late
//! write lands beside the larger fence's object, never over it, and is not
//! the largest, so no reader sees it.

use super::resource::check_resource;
use crate::error::{Code, Error, Result};
use crate::fence::{Fence, TEXT_DIGITS};

/// What separates a key from its fences' objects.
pub const FENCES_DIR: &str = "/tinystore-fence/";

/// The longest S3 key, in bytes.
const MAX_KEY_BYTES: usize = 1024;

/// Checks a guarded object's bucket and key and gives its resource,
/// `bucket/key`: each must be non-empty, the key must not hold
/// [`FENCES_DIR`], and its fences' keys must fit S3's 1024 bytes.
pub fn object_resource(bucket: &str, key: &str) -> Result<String> {
    if bucket.is_empty() || key.is_empty() {
        return Err(Error::invalid(format!(
            "a guarded object needs a bucket and a key; it was given bucket {bucket:?} and key {key:?}"
        )));
    }
    let resource = format!("{bucket}/{key}");
    check_resource(&resource)?;
    if key.contains(FENCES_DIR) {
        return Err(Error::invalid(format!(
            "the key {key:?} holds {FENCES_DIR:?}, where the guard keeps its fences' objects: choose another key"
        )));
    }
    let longest = key.len() + FENCES_DIR.len() + TEXT_DIGITS;
    if longest > MAX_KEY_BYTES {
        return Err(Error::invalid(format!(
            "the key {key:?} is {} bytes long; a guarded key is at most {} bytes, so that its fences' objects fit S3's {MAX_KEY_BYTES}",
            key.len(),
            MAX_KEY_BYTES - FENCES_DIR.len() - TEXT_DIGITS
        )));
    }
    Ok(resource)
}

/// The prefix under which `key`'s fences' objects are listed.
pub fn fences_prefix(key: &str) -> String {
    format!("{key}{FENCES_DIR}")
}

/// The object that holds `key`'s write with `fence`.
pub fn fence_key(key: &str, fence: Fence) -> String {
    format!("{key}{FENCES_DIR}{}", fence.text())
}

/// The fences of a listing under `prefix`, each with its object's key,
/// smallest first. A key whose rest is not 40 digits (an object put there
/// by hand) is `corrupt`, naming the resource and the key.
pub fn listed_fences(
    resource: &str,
    prefix: &str,
    keys: &[String],
) -> Result<Vec<(Fence, String)>> {
    let mut fences = Vec::with_capacity(keys.len());
    for key in keys {
        let Some(text) = key.strip_prefix(prefix) else {
            return Err(Error::internal(format!(
                "the listing of object {resource:?} gave {key:?}, which is not under {prefix:?}"
            )));
        };
        let fence = (text.len() == TEXT_DIGITS)
            .then(|| Fence::parse(text).ok())
            .flatten()
            .ok_or_else(|| {
                Error::new(
                    Code::Corrupt,
                    format!(
                        "the object {key:?} sits among the fences of object {resource:?}, but {text:?} is not a fence of {TEXT_DIGITS} digits: remove it"
                    ),
                )
            })?;
        fences.push((fence, key.clone()));
    }
    fences.sort();
    Ok(fences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fences_key_sorts_as_its_fence() {
        let (a, b) = (
            fence_key("k", Fence::from_u128(9)),
            fence_key("k", Fence::from_u128(10)),
        );
        assert!(a < b && a.starts_with(&fences_prefix("k")), "{a} {b}");
    }

    #[test]
    fn a_listing_gives_fences_smallest_first_and_a_stray_is_corrupt() {
        let prefix = fences_prefix("k");
        let keys = vec![
            fence_key("k", Fence::from_u128(10)),
            fence_key("k", Fence::from_u128(2)),
        ];
        let fences = listed_fences("b/k", &prefix, &keys).unwrap();
        assert_eq!(
            fences.iter().map(|f| f.0.get()).collect::<Vec<_>>(),
            [2, 10]
        );
        let stray = vec![format!("{prefix}notes.txt")];
        let err = listed_fences("b/k", &prefix, &stray).unwrap_err();
        assert_eq!(err.code(), Code::Corrupt);
        assert!(
            err.message().contains("notes.txt") && err.message().contains("\"b/k\""),
            "{err}"
        );
    }

    #[test]
    fn bad_buckets_and_keys_are_invalid_naming_them() {
        assert_eq!(
            object_resource("b", "chats/42.json").unwrap(),
            "b/chats/42.json"
        );
        for (bucket, key) in [
            ("", "k"),
            ("b", ""),
            ("b", "a/tinystore-fence/x"),
            ("b", &"k".repeat(1000)),
        ] {
            let err = object_resource(bucket, key).unwrap_err();
            assert_eq!(err.code(), Code::Invalid, "{bucket:?} {key:?}");
        }
    }
}
