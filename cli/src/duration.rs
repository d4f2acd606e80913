//! Durations on the command line: a whole number and a unit, as in `300ms`,
//! `15s`, `2m` or `1h`.

use std::time::Duration;

/// Parses `300ms`, `15s`, `2m` or `1h`; a clap value parser.
pub fn parse(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} has no unit; write e.g. 300ms, 15s, 2m or 1h"))?;
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} must start with a whole number, as in 15s"))?;
    let ms = match unit {
        "ms" => Some(n),
        "s" => n.checked_mul(1000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => return Err(format!("{text:?} has unit {unit:?}; use ms, s, m or h")),
    };
    ms.map(Duration::from_millis)
        .ok_or_else(|| format!("{text:?} is too long"))
}

#[cfg(test)]
mod tests {
    use super::parse;
    use std::time::Duration;

    #[test]
    fn reads_each_unit_and_refuses_the_rest() {
        assert_eq!(parse("300ms"), Ok(Duration::from_millis(300)));
        assert_eq!(parse("15s"), Ok(Duration::from_secs(15)));
        assert_eq!(parse("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "15", "s", "-1s", "1.5s", "1d", "99999999999999999999h"] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
