//! Where a Redis guard keeps a key's fence: one string key beside the data
//! key, in the same Redis Cluster hash slot, so that the check, the write
//! and the record run in one script on one node.
//!
//! - A key with a hash tag (`user:{42}:profile`) keeps its fence at
//!   `user:{42}:profile:tinystore-fence`: the same tag, so the same slot.
//! - A key without one (`chats/42`) keeps it at
//!   `{chats/42}:tinystore-fence`: its whole text is the tag, and a key
//!   without a tag hashes as its whole text.
//! - A key with a `}` but no tag (`a}b`) fits neither: `invalid`, asking
//!   for a hash tag. So does a script's key in another slot than the first.

use crate::error::{Error, Result};

/// What a data key's register key ends with.
pub const REGISTER_SUFFIX: &str = ":tinystore-fence";

/// Redis Cluster's number of hash slots.
pub const HASH_SLOTS: u16 = 16384;

/// The hash tag of `key` as Redis Cluster reads it: the text between its
/// first `{` and the first `}` after it, when that is not empty.
pub fn hash_tag(key: &str) -> Option<&str> {
    let open = key.find('{')?;
    let rest = &key[open + 1..];
    let close = rest.find('}')?;
    (close > 0).then(|| &rest[..close])
}

/// The hash slot of `key`: CRC16 (XMODEM) of its tag, or of the whole key
/// without one, modulo 16384.
pub fn hash_slot(key: &str) -> u16 {
    crc16(hash_tag(key).unwrap_or(key).as_bytes()) % HASH_SLOTS
}

/// CRC16-CCITT (XMODEM), as Redis Cluster computes it.
fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The register key of data key `key`, in its hash slot; `invalid` when no
/// name fits (a `}` outside a tag).
pub fn register_key(key: &str) -> Result<String> {
    let register = match hash_tag(key) {
        Some(_) => format!("{key}{REGISTER_SUFFIX}"),
        None => format!("{{{key}}}{REGISTER_SUFFIX}"),
    };
    if hash_slot(&register) == hash_slot(key) {
        return Ok(register);
    }
    Err(Error::invalid(format!(
        "cannot guard Redis key {key:?}: it holds a '}}' but no hash tag, so no register key \
         can share its hash slot; give it a hash tag, such as \"{{{}}}\"",
        key.replace(['{', '}'], "")
    )))
}

/// Checks that every key a script touches is in `first`'s hash slot, as a
/// script on Redis Cluster must be; `invalid` naming the two otherwise.
pub fn same_slot<'a>(first: &str, keys: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let slot = hash_slot(first);
    match keys.into_iter().find(|k| hash_slot(k) != slot) {
        None => Ok(()),
        Some(other) => Err(Error::invalid(format!(
            "Redis keys {first:?} and {other:?} are in different hash slots ({slot} and {}), \
             and one script touches both: give them a common hash tag, such as \"user:{{42}}:a\" \
             and \"user:{{42}}:b\"",
            hash_slot(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    #[test]
    fn slots_are_redis_clusters() {
        // Redis Cluster's specification: CRC16("123456789") is 0x31C3.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        // As CLUSTER KEYSLOT answers.
        assert_eq!(hash_slot("foo"), 12182);
        assert_eq!(hash_slot("{user1000}.following"), hash_slot("user1000"));
        assert_eq!(hash_slot("foo{}{bar}"), hash_slot("foo{}{bar}"));
        assert_eq!(hash_tag("foo{}{bar}"), None);
        assert_eq!(hash_tag("foo{{bar}}zap"), Some("{bar"));
        assert_eq!(hash_tag("foo{bar}{zap}"), Some("bar"));
    }

    #[test]
    fn a_register_shares_its_keys_slot() {
        for key in ["chats/42", "user:{42}:profile", "a{b", "é{ü}"] {
            let register = register_key(key).unwrap();
            assert!(register.ends_with(REGISTER_SUFFIX), "{register}");
            assert_eq!(hash_slot(&register), hash_slot(key), "{key} -> {register}");
        }
        assert_eq!(
            register_key("chats/42").unwrap(),
            "{chats/42}:tinystore-fence"
        );
        assert_eq!(
            register_key("user:{42}:profile").unwrap(),
            "user:{42}:profile:tinystore-fence"
        );
    }

    #[test]
    fn a_key_no_register_can_share_a_slot_with_is_invalid() {
        for key in ["a}b", "{}x"] {
            let err = register_key(key).unwrap_err();
            assert_eq!(err.code(), Code::Invalid);
            assert!(err.message().contains("hash tag"), "{}", err.message());
        }
    }

    #[test]
    fn keys_of_one_script_must_share_a_slot() {
        assert!(same_slot("user:{42}:a", ["user:{42}:b", "{42}"]).is_ok());
        let err = same_slot("user:{42}:a", ["user:{43}:b"]).unwrap_err();
        assert_eq!(err.code(), Code::Invalid);
        assert!(err.message().contains("user:{43}:b"), "{}", err.message());
    }
}
