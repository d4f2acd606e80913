//! What a group name, a key and a leader's value may be, and how keys are made from Rust values.

use crate::error::{Error, Result};
use std::borrow::Cow;

/// The longest group name, in bytes.
pub const MAX_NAME_BYTES: usize = 128;
/// The longest key, in bytes of UTF-8.
pub const MAX_KEY_BYTES: usize = 1024;
/// The longest value a leader may have, in bytes of UTF-8.
pub const MAX_VALUE_BYTES: usize = 1024;

/// Checks a group name: 1 to 128 bytes of `A-Z a-z 0-9 . _ - :`.
pub(crate) fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(format!(
            "name {name:?} must be 1 to {MAX_NAME_BYTES} bytes, not {}",
            name.len()
        )));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':')))
    {
        return Err(Error::invalid(format!(
            "name {name:?} has {bad:?}; a name may hold only A-Z a-z 0-9 . _ - :"
        )));
    }
    Ok(())
}

/// Checks a leader's value for the election `name`: at most
/// [`MAX_VALUE_BYTES`] bytes; `invalid` naming its size otherwise.
pub(crate) fn check_value(name: &str, value: &str) -> Result<()> {
    if value.len() > MAX_VALUE_BYTES {
        return Err(Error::invalid(format!(
            "value of election {name} must be at most {MAX_VALUE_BYTES} bytes, not {}",
            value.len()
        )));
    }
    Ok(())
}

/// Checks a key: 1 to 1024 bytes of UTF-8.
pub(crate) fn check_key(name: &str, key: &str) -> Result<()> {
    if key.is_empty() || key.len() > MAX_KEY_BYTES {
        return Err(Error::invalid(format!(
            "key of {name} must be 1 to {MAX_KEY_BYTES} bytes, not {}",
            key.len()
        )));
    }
    Ok(())
}

/// A value that names a key: text, or an integer, which is its decimal text
/// (so `42` and `"42"` are the same key).
pub trait Key {
    /// The key's text.
    fn key_text(&self) -> Cow<'_, str>;
}

impl Key for str {
    fn key_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl Key for String {
    fn key_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl<K: Key + ?Sized> Key for &K {
    fn key_text(&self) -> Cow<'_, str> {
        (**self).key_text()
    }
}

macro_rules! integer_keys {
    ($($t:ty),*) => {$(
        impl Key for $t {
            fn key_text(&self) -> Cow<'_, str> {
                Cow::Owned(self.to_string())
            }
        }
    )*};
}

integer_keys!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
