//! The TCP token: read from a file, compared in constant time.

use crate::error::{Code, Error, Result};
use std::path::Path;

/// Reads a token file: its text with surrounding whitespace removed. Fails
/// with `invalid` when the token is shorter than 16 bytes.
pub fn read_token_file(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io(format!("cannot read token file {}", path.display()), e))?;
    let token = text.trim().to_string();
    if token.len() < 16 {
        return Err(Error::new(
            Code::Invalid,
            format!(
                "token file {} holds {} bytes; a token must have at least 16",
                path.display(),
                token.len()
            ),
        ));
    }
    Ok(token)
}

/// Whether `given` equals `expected`, taking the same time whatever bytes
/// differ (the time depends only on the lengths).
pub(super) fn token_matches(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = (given.len() != expected.len()) as u8;
    for (i, &e) in expected.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(!e);
        diff |= g ^ e;
    }
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::token_matches;

    #[test]
    fn matches_only_the_same_bytes() {
        assert!(token_matches(b"secret-token-123", b"secret-token-123"));
        assert!(!token_matches(b"secret-token-124", b"secret-token-123"));
        assert!(!token_matches(b"secret-token-12", b"secret-token-123"));
        assert!(!token_matches(b"secret-token-1234", b"secret-token-123"));
        assert!(!token_matches(b"", b"secret-token-123"));
    }
}
