//! Fences as JS bigints: the core's strict parser and text form.

use crate::error::{invalid, to_napi};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::Fence;

/// Parses a fence's decimal with the core's strict parser: ASCII digits
/// only, leading zeros allowed, at most 2^128-1.
#[napi]
pub fn parse_fence(text: String) -> napi::Result<BigInt> {
    let fence = Fence::parse(&text).map_err(to_napi)?;
    Ok(BigInt::from(fence.get()))
}

/// The 40-digit zero-padded text of a fence, which orders as text the way
/// fences order as numbers. Refuses a bigint below 0 or above 2^128-1.
#[napi]
pub fn fence_text(fence: BigInt) -> napi::Result<String> {
    Ok(to_fence(&fence)?.text())
}

/// The core fence for a bigint from 0 to 2^128-1.
pub fn to_fence(value: &BigInt) -> napi::Result<Fence> {
    let (negative, number, lossless) = value.get_u128();
    if negative && number != 0 {
        return Err(invalid("fence is below 0"));
    }
    if !lossless {
        return Err(invalid("fence is above 2^128-1"));
    }
    Ok(Fence::from_u128(number))
}
