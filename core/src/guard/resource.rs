//! A guard's resource: the name of what is written, 1 to 1024 bytes of UTF-8.

use crate::error::{Error, Result};

/// The longest resource name, in bytes of UTF-8.
pub const MAX_RESOURCE_BYTES: usize = 1024;

/// Checks a resource name: 1 to [`MAX_RESOURCE_BYTES`] bytes, no NUL (which
/// PostgreSQL's text cannot hold). An `invalid` error names what is wrong.
pub fn check_resource(resource: &str) -> Result<()> {
    if resource.is_empty() {
        return Err(Error::invalid(
            "guard resource is empty: name what is written, such as \"chats/42\"",
        ));
    }
    if resource.len() > MAX_RESOURCE_BYTES {
        return Err(Error::invalid(format!(
            "guard resource is {} bytes long; the longest is {MAX_RESOURCE_BYTES}",
            resource.len()
        )));
    }
    if resource.contains('\0') {
        return Err(Error::invalid(format!(
            "guard resource {resource:?} contains a NUL character"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    #[test]
    fn a_resource_is_one_to_1024_bytes_without_nul() {
        assert!(check_resource("chats/42").is_ok());
        assert!(check_resource(&"é".repeat(512)).is_ok());
        for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
            let err = check_resource(&bad).unwrap_err();
            assert_eq!(err.code(), Code::Invalid, "{bad:?}");
            assert!(err.message().contains("resource"), "{}", err.message());
        }
    }
}
