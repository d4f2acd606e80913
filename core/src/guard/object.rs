//! The guard on object storage with conditional writes (S3 and
//! S3-compatible stores): the rule decided once, for every language's S3
//! client to apply.
//!
//! The fence lives in the object's own metadata, [`METADATA_KEY`], as its
//! 40-digit text. A guarded put reads the object's fence and ETag (a HEAD),
//! asks [`decide_put`], and writes with the condition it gives: `If-Match`
//! on the ETag it read, or `If-None-Match: *` when there was no object. A
//! `412 Precondition Failed` means another writer came in between: read
//! again and decide again, at most [`MAX_TRIES`] times in all, then
//! [`too_many_races`]. A guarded delete is a put of a tombstone (an empty
//! object whose metadata [`TOMBSTONE_KEY`] is `true`), so that the deleted
//! object's fence stays and a late holder cannot bring it back.
//!
//! S3 compares ETags, and a single-part object's ETag is its body's MD5,
//! blind to metadata: a write whose body is the object's current body
//! leaves the ETag as it was, so a late writer that read the ETag before it
//! would overwrite it unseen. [`decide_put`] therefore refuses a write that
//! would not change the ETag (`invalid`, nothing written).

use super::decide::refused;
use super::resource::check_resource;
use crate::error::{Code, Error, Result};
use crate::fence::{Fence, TEXT_DIGITS};

/// The metadata key that holds an object's fence (S3 sends it as
/// `x-amz-meta-tinystore-fence`).
pub const METADATA_KEY: &str = "tinystore-fence";

/// The metadata key of a tombstone, the object a guarded delete leaves;
/// its value is `true`.
pub const TOMBSTONE_KEY: &str = "tinystore-deleted";

/// How many times a guarded put reads and tries in all before it gives up
/// on a resource other writers keep changing.
pub const MAX_TRIES: u32 = 5;

/// The object as a HEAD read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stored<'a> {
    /// Its ETag, as the store gave it (quotes included).
    pub etag: &'a str,
    /// Its [`METADATA_KEY`] metadata, if it has one.
    pub fence: Option<&'a str>,
}

/// The condition a guarded write is sent with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// `If-None-Match: *`: there was no object.
    Create,
    /// `If-Match: <etag>`: the object read, unchanged since.
    Replace(String),
}

/// Decides a guarded write of `fence` to `resource` (`bucket/key`) over
/// what a HEAD read (`None`: no object). `body_md5` is the hex MD5 of the
/// body to write (the ETag it will get). An object with no fence in its
/// metadata was never written through the guard: it is replaced. A stored
/// fence above `fence` is `stale`; one that is not 40 digits is `corrupt`,
/// naming the resource; a body equal to the object's (the same ETag) is
/// `invalid`.
pub fn decide_put(
    resource: &str,
    fence: Fence,
    stored: Option<Stored<'_>>,
    body_md5: &str,
) -> Result<Condition> {
    check_resource(resource)?;
    let Some(stored) = stored else {
        return Ok(Condition::Create);
    };
    if let Some(text) = stored.fence {
        // 40 digits compare as text the way fences compare as numbers.
        let well_formed = text.len() == TEXT_DIGITS && Fence::parse(text).is_ok();
        if !well_formed || text > fence.text().as_str() {
            refused(resource, fence, Some(text)).map_err(|e| in_metadata(e, resource))?;
        }
    }
    if stored.etag.trim_matches('"').eq_ignore_ascii_case(body_md5) {
        return Err(Error::invalid(format!(
            "the guarded write to object {resource:?} would leave its ETag as it is (its body is the object's body, and S3 compares ETags only), so a late writer could overwrite it unseen; nothing was written"
        )));
    }
    Ok(Condition::Replace(stored.etag.to_string()))
}

/// A corrupt register is, here, the object's metadata.
fn in_metadata(err: Error, resource: &str) -> Error {
    if err.code() != Code::Corrupt {
        return err;
    }
    Error::new(
        Code::Corrupt,
        format!(
            "the {METADATA_KEY} metadata of object {resource:?} is not a fence of 40 digits: {}",
            err.message()
        ),
    )
}

/// The error of a guarded put that met another writer on every one of its
/// [`MAX_TRIES`] tries.
pub fn too_many_races(resource: &str) -> Error {
    Error::new(
        Code::Limit,
        format!(
            "the guarded write of object {resource:?} was overtaken by another writer {MAX_TRIES} times in a row (412 Precondition Failed each time); nothing was written"
        ),
    )
}

/// Checks the caller's own metadata for a guarded put to `resource`
/// (`bucket/key`): a key that is one of the guard's own ([`METADATA_KEY`],
/// [`TOMBSTONE_KEY`], in any case) is `invalid`, naming it.
pub fn check_metadata<'a>(resource: &str, keys: impl IntoIterator<Item = &'a str>) -> Result<()> {
    for name in keys {
        let lower = name.to_ascii_lowercase();
        if lower == METADATA_KEY || lower == TOMBSTONE_KEY {
            return Err(Error::new(
                Code::Invalid,
                format!(
                    "the metadata of a guarded put to object {resource:?} may not set {name:?}: it is the guard's own key, which the guard writes; nothing was written"
                ),
            ));
        }
    }
    Ok(())
}

/// The `unauthorized` error of a guarded write whose HEAD of `resource`
/// was refused with HTTP `status` (403): the guard must read the object's
/// fence and ETag before it writes.
pub fn head_refused(resource: &str, status: u16) -> Error {
    Error::new(
        Code::Unauthorized,
        format!(
            "reading object {resource:?} was refused (HTTP {status}): a guarded write first reads the object's {METADATA_KEY} metadata and ETag (a HEAD, which needs s3:GetObject); nothing was written"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guards_own_metadata_keys_are_refused_in_any_case() {
        assert_eq!(check_metadata("b/k", ["owner", "x"]), Ok(()));
        for key in ["tinystore-fence", "Tinystore-Deleted"] {
            let err = check_metadata("b/k", ["owner", key]).unwrap_err();
            assert_eq!(err.code(), Code::Invalid);
            assert!(err.message().contains(key), "{err}");
            assert!(err.message().contains("\"b/k\""), "{err}");
        }
    }

    #[test]
    fn a_refused_head_is_unauthorized_and_names_the_object() {
        let err = head_refused("b/k", 403);
        assert_eq!(err.code(), Code::Unauthorized);
        assert!(
            err.message().contains("\"b/k\"") && err.message().contains("403"),
            "{err}"
        );
    }

    const MD5: &str = "0cc175b9c0f1b6a831c399e269772661";

    #[test]
    fn a_write_that_keeps_the_etag_is_invalid() {
        let same = Some(Stored {
            etag: "\"0CC175B9C0F1B6A831C399E269772661\"",
            fence: None,
        });
        let err = decide_put("b/k", Fence::from_u128(7), same, MD5).unwrap_err();
        assert_eq!(err.code(), Code::Invalid);
        assert!(err.message().contains("ETag"), "{err}");
    }

    fn stored(fence: Option<&str>) -> Option<Stored<'_>> {
        Some(Stored {
            etag: "\"e1\"",
            fence,
        })
    }

    #[test]
    fn no_object_is_created_and_an_unguarded_one_replaced() {
        let f = Fence::from_u128(7);
        assert_eq!(decide_put("b/k", f, None, MD5).unwrap(), Condition::Create);
        assert_eq!(
            decide_put("b/k", f, stored(None), MD5).unwrap(),
            Condition::Replace("\"e1\"".into())
        );
    }

    #[test]
    fn equal_or_smaller_stored_fences_are_replaced_larger_ones_are_stale() {
        let f = Fence::from_u128(7);
        for ok in [Fence::from_u128(7).text(), Fence::from_u128(6).text()] {
            assert!(matches!(
                decide_put("b/k", f, stored(Some(&ok)), MD5),
                Ok(Condition::Replace(_))
            ));
        }
        let larger = Fence::from_u128(8).text();
        let err = decide_put("b/k", f, stored(Some(&larger)), MD5).unwrap_err();
        assert_eq!(err.code(), Code::Stale);
        let stale = err.stale_detail().unwrap();
        assert_eq!(
            (stale.resource.as_str(), stale.fence, stale.largest),
            ("b/k", 7, 8)
        );
    }

    #[test]
    fn malformed_metadata_is_corrupt_naming_the_object() {
        for bad in [
            "7",
            "",
            "x".repeat(40).as_str(),
            &"9".repeat(40),
            " 000000000000000000000000000000000000007",
        ] {
            let err = decide_put("b/k", Fence::from_u128(7), stored(Some(bad)), MD5).unwrap_err();
            assert_eq!(err.code(), Code::Corrupt, "{bad:?}");
            assert!(
                err.message().contains("\"b/k\"") && err.message().contains(METADATA_KEY),
                "{err}"
            );
        }
    }

    #[test]
    fn a_bad_resource_is_invalid() {
        assert_eq!(
            decide_put("", Fence::from_u128(1), None, MD5)
                .unwrap_err()
                .code(),
            Code::Invalid
        );
    }
}
