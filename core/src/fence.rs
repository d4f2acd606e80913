//! Fences: 128-bit numbers, the store's epoch in the high 64 bits and a
//! count in the low 64, that strictly increase in the order leases are given.

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The number of digits in a fence's text form.
pub(crate) const TEXT_DIGITS: usize = 40;

/// A fence: larger than every fence the store gave before it.
///
/// Fences order as numbers. [`Fence::text`] gives the 40-digit zero-padded
/// decimal that orders the same way as text, for keeping in SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Fence(u128);

impl Fence {
    /// The fence made of an epoch (high 64 bits) and a count (low 64).
    pub const fn new(epoch: u64, count: u64) -> Fence {
        Fence(((epoch as u128) << 64) | count as u128)
    }

    /// The fence with this value.
    pub const fn from_u128(value: u128) -> Fence {
        Fence(value)
    }

    /// The fence's value as a number.
    pub const fn get(self) -> u128 {
        self.0
    }

    /// The store's epoch when it gave this fence: the high 64 bits.
    pub const fn epoch(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// The count within the epoch: the low 64 bits.
    pub const fn count(self) -> u64 {
        self.0 as u64
    }

    /// The 40-digit zero-padded decimal, which orders as text the way fences
    /// order as numbers.
    pub fn text(self) -> String {
        // By hand: `format!("{:040}")` pads one character at a time, and
        // this runs beside every guarded write. Forty digits are 2 + 19 + 19:
        // two divisions of the u128, then the rest in u64.
        const E19: u128 = 10_000_000_000_000_000_000;
        let mut digits = [b'0'; 40];
        let (high, rest) = (self.0 / (E19 * E19), self.0 % (E19 * E19));
        let chunks = [
            (0..2, high as u64),
            (2..21, (rest / E19) as u64),
            (21..40, (rest % E19) as u64),
        ];
        for (range, mut value) in chunks {
            for digit in digits[range].iter_mut().rev() {
                *digit = b'0' + (value % 10) as u8;
                value /= 10;
            }
        }
        std::str::from_utf8(&digits).unwrap_or_default().to_string()
    }

    /// Parses a decimal: ASCII digits only, leading zeros allowed, at most
    /// 2^128-1; no sign, space, `_`, `0x`, other scripts' digits or empty text.
    pub fn parse(text: &str) -> Result<Fence> {
        if text.is_empty() {
            return Err(Error::invalid("fence text is empty"));
        }
        if !text.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(Error::invalid(format!(
                "fence text {text:?} is not a decimal of ASCII digits"
            )));
        }
        let above = || Error::invalid(format!("fence text {text:?} is above 2^128-1"));
        // 2^128-1 has 39 digits. Read 19 at a time, each fits a u64: a
        // fence's 40-digit text takes three steps, not forty.
        let digits = text.trim_start_matches('0');
        if digits.len() > 39 {
            return Err(above());
        }
        let mut value: u128 = 0;
        for chunk in digits.as_bytes().chunks(19) {
            let part = chunk
                .iter()
                .fold(0u64, |n, byte| n * 10 + u64::from(byte - b'0'));
            value = value
                .checked_mul(10u128.pow(chunk.len() as u32))
                .and_then(|v| v.checked_add(u128::from(part)))
                .ok_or_else(above)?;
        }
        Ok(Fence(value))
    }
}

impl fmt::Display for Fence {
    /// The decimal value; width, fill and alignment flags apply, so
    /// `format!("{:040}", fence)` gives the text form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for Fence {
    type Err = Error;

    fn from_str(text: &str) -> Result<Fence> {
        Fence::parse(text)
    }
}

impl From<Fence> for u128 {
    fn from(fence: Fence) -> u128 {
        fence.0
    }
}

impl serde::Serialize for Fence {
    /// A fence is a decimal string on the wire.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Fence {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Fence, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Fence::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_text_is_forty_digits_at_the_edges() {
        let e19 = 10_000_000_000_000_000_000u128;
        for value in [
            0,
            1,
            9,
            10,
            e19 - 1,
            e19,
            e19 * e19 - 1,
            e19 * e19,
            u128::MAX,
        ] {
            assert_eq!(Fence::from_u128(value).text(), format!("{value:040}"));
        }
    }

    #[test]
    fn parsing_reads_any_count_of_digits_up_to_the_largest() {
        let max = u128::MAX.to_string();
        assert_eq!(max.len(), 39);
        assert_eq!(Fence::parse(&max).unwrap().get(), u128::MAX);
        let zeros = "0".repeat(60);
        assert_eq!(
            Fence::parse(&format!("{zeros}{max}")).unwrap().get(),
            u128::MAX
        );
        assert_eq!(Fence::parse(&zeros).unwrap().get(), 0);
        for above in [
            "340282366920938463463374607431768211456",
            &"9".repeat(39),
            &"1".repeat(40),
        ] {
            let err = Fence::parse(above).unwrap_err();
            assert!(err.message().contains("above 2^128-1"), "{above}: {err}");
        }
        for bad in ["", "12a", "+1", " 1", "1_000", "\u{661}"] {
            assert_eq!(
                Fence::parse(bad).unwrap_err().code(),
                crate::Code::Invalid,
                "{bad:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn parsing_is_the_decimal_of_any_length(value: u128, zeros in 0usize..45) {
            let text = format!("{}{value}", "0".repeat(zeros));
            prop_assert_eq!(Fence::parse(&text).unwrap().get(), value);
        }

        #[test]
        fn the_text_is_the_padded_decimal(value: u128) {
            let text = Fence::from_u128(value).text();
            prop_assert_eq!(&text, &format!("{value:040}"));
            prop_assert_eq!(Fence::parse(&text).unwrap().get(), value);
        }
    }
}
