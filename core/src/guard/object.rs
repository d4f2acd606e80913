//! The guard on object storage (S3 and S3-compatible stores): the names
//! its objects carry, its bound on tries, and the caller's own metadata
//! checked. The protocol is [`super::object_write`] and
//! [`super::object_read`], on the layout of [`super::object_layout`].

use crate::error::{Code, Error, Result};

/// The metadata key that holds an object's fence as 40 digits (S3 sends it
/// as `x-amz-meta-tinystore-fence`).
pub const METADATA_KEY: &str = "tinystore-fence";

/// The metadata key of a tombstone, the object a guarded delete leaves;
/// its value is `true`.
pub const TOMBSTONE_KEY: &str = "tinystore-deleted";

/// How many times a guarded read lists and gets in all before it gives up
/// on an object that later writers keep replacing.
pub const MAX_TRIES: u32 = 5;

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
}
