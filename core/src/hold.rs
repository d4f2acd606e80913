//! How a hold ends: the one rule every language's `hold` follows, whether
//! it is a Rust closure, a Python `async with`, a TypeScript callback or a
//! Go func.
//!
//! 1. The body's own error, whatever releasing said: a release error never
//!    hides it.
//! 2. Else, when the lease was lost before the body ended, the error that
//!    says why, with its code: `closed` when its store was closed;
//!    `lease_lost` when it ran out, or its connection or server broke.
//! 3. Else the body's value.
//!
//! A lease's `release` (and `lost_reason`) already give the error of rule 2
//! with the right code, so a binding never reinterprets errors: it calls
//! [`hold_outcome`], or, when the body's error is its language's own, the
//! lease's `end_hold`.

use crate::error::{Error, Result};

/// What a hold returns, given how its body ended and what releasing the
/// lease said afterwards: the body's error first; else the release's error
/// (the lease was lost before the body ended: `closed` or `lease_lost`);
/// else the body's value.
pub fn hold_outcome<T, E: From<Error>>(body: Result<T, E>, release: Result<()>) -> Result<T, E> {
    let value = body?;
    release.map_err(E::from)?;
    Ok(value)
}
