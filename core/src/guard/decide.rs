//! What a check-and-record that changed no row means, and the guard's other
//! errors, so that every binding says the same.

use crate::error::{Code, Error, Result, Stale};
use crate::fence::{Fence, TEXT_DIGITS};

/// Decides a write whose check-and-record changed no row, from the fence
/// recorded for the resource as it reads now (`None`: no row).
///
/// - a recorded fence equal to `fence` is accepted (a database that counts
///   an unchanged row as no change, as MySQL does);
/// - a larger one is `stale`, carrying the three;
/// - one that is not 40 ASCII digits is `corrupt`, naming the resource;
/// - none, or a smaller one, cannot follow a refusal: `internal`.
pub fn refused(resource: &str, fence: Fence, recorded: Option<&str>) -> Result<()> {
    refused_in("tinystore_fences", resource, fence, recorded)
}

/// [`refused`] for a register named `register` in its messages (the SQL
/// table, or a Redis key).
pub fn refused_in(
    register: &str,
    resource: &str,
    fence: Fence,
    recorded: Option<&str>,
) -> Result<()> {
    let Some(text) = recorded else {
        return Err(Error::internal(format!(
            "the guard refused fence {fence} for {resource:?}, yet no fence is recorded for it"
        )));
    };
    let largest = parse_recorded(register, resource, text)?;
    if largest == fence {
        return Ok(());
    }
    if largest > fence {
        return Err(Error::stale(Stale {
            resource: resource.to_string(),
            fence: fence.get(),
            largest: largest.get(),
        }));
    }
    Err(Error::internal(format!(
        "the guard refused fence {fence} for {resource:?}, yet only fence {largest} is recorded for it"
    )))
}

/// A recorded fence read back: exactly 40 ASCII digits, else `corrupt`.
fn parse_recorded(register: &str, resource: &str, text: &str) -> Result<Fence> {
    let well_formed = text.len() == TEXT_DIGITS && text.bytes().all(|b| b.is_ascii_digit());
    if !well_formed {
        return Err(Error::new(
            Code::Corrupt,
            format!(
                "the fence recorded for {resource:?} in {register} is {text:?}, not {TEXT_DIGITS} digits"
            ),
        ));
    }
    Fence::parse(text).map_err(|_| {
        Error::new(
            Code::Corrupt,
            format!(
                "the fence recorded for {resource:?} in {register}, {text:?}, is above 2^128-1"
            ),
        )
    })
}

/// The `invalid` error of a guard whose register table does not exist,
/// saying how to make it.
pub fn missing_table(resource: &str) -> Error {
    Error::invalid(format!(
        "cannot guard {resource:?}: the table tinystore_fences does not exist; make it once with the guard's ensure, or run its migration"
    ))
}

/// The `invalid` error of a guard called outside a transaction, where its
/// record would be committed apart from the write it guards.
pub fn not_in_transaction(resource: &str) -> Error {
    Error::invalid(format!(
        "cannot guard {resource:?} outside a transaction: begin one, check, write, then commit"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Fence = Fence::from_u128(7);

    #[test]
    fn a_larger_recorded_fence_is_stale_with_the_three() {
        let err = refused("chats/42", F, Some(&Fence::from_u128(9).text())).unwrap_err();
        assert_eq!(err.code(), Code::Stale);
        let stale = err.stale_detail().unwrap();
        assert_eq!(
            (stale.resource.as_str(), stale.fence, stale.largest),
            ("chats/42", 7, 9)
        );
        assert!(err.message().contains("chats/42"), "{}", err.message());
    }

    #[test]
    fn an_equal_recorded_fence_is_accepted() {
        assert!(refused("r", F, Some(&F.text())).is_ok());
    }

    #[test]
    fn a_malformed_recorded_fence_is_corrupt_naming_the_resource() {
        for text in ["", "7", "x".repeat(40).as_str(), &"9".repeat(40)] {
            let err = refused("chats/42", F, Some(text)).unwrap_err();
            assert_eq!(err.code(), Code::Corrupt, "{text:?}");
            assert!(err.message().contains("chats/42"), "{}", err.message());
        }
    }

    #[test]
    fn no_row_or_a_smaller_one_after_a_refusal_is_internal() {
        assert_eq!(refused("r", F, None).unwrap_err().code(), Code::Internal);
        let smaller = Fence::from_u128(3).text();
        assert_eq!(
            refused("r", F, Some(&smaller)).unwrap_err().code(),
            Code::Internal
        );
    }
}
