//! The options record as every binding fills it: an option by its name,
//! from what the caller passed (a number in the language's unit of time,
//! or a boolean). The table of names, the kind each takes and every message
//! about a bad value live here once, so that a new option is a field of
//! [`Options`] and a row below, and no binding's code changes.

use crate::error::{Error, Result};
use crate::options::Options;
use std::time::Duration;

/// What a caller passed for an option, in its language's terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Given {
    /// A number: a duration in the binding's [`TimeUnit`], or a count.
    Number(f64),
    /// A boolean.
    Bool(bool),
}

/// The unit a binding's durations are in: seconds in Python,
/// milliseconds in JavaScript, nanoseconds in Go (`time.Duration`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds (Python).
    Seconds,
    /// Milliseconds (JavaScript).
    Millis,
    /// Nanoseconds (Go).
    Nanos,
}

impl TimeUnit {
    fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "seconds",
            TimeUnit::Millis => "milliseconds",
            TimeUnit::Nanos => "nanoseconds",
        }
    }

    fn per_second(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1.0,
            TimeUnit::Millis => 1e3,
            TimeUnit::Nanos => 1e9,
        }
    }
}

/// What an option takes, and how it is stored in [`Options`]: one row of
/// the table below says both, so a new option cannot be named without
/// its field.
#[derive(Clone, Copy)]
enum Setter {
    Duration(fn(&mut Options, Duration)),
    Bool(fn(&mut Options, bool)),
    Count(fn(&mut Options, u32)),
}

/// Every option of a group, an acquire, a hold and a campaign, by its name
/// in snake_case (a binding spells it in its own case: `maxHold` in
/// JavaScript), with the kind of value it takes and its field.
const OPTIONS: &[(&str, Setter)] = &[
    ("ttl", Setter::Duration(|o, d| o.ttl = Some(d))),
    ("wait", Setter::Duration(|o, d| o.wait = Some(d))),
    ("renew", Setter::Bool(|o, b| o.renew = Some(b))),
    ("max_hold", Setter::Duration(|o, d| o.max_hold = Some(d))),
    ("weight", Setter::Count(|o, n| o.weight = Some(n))),
];

impl Options {
    /// Whether `name` (snake_case) is an option.
    pub fn is_option(name: &str) -> bool {
        OPTIONS.iter().any(|(n, _)| *n == name)
    }

    /// Sets the option `name` (snake_case) from `given`, durations in
    /// `unit`. `invalid`, naming the option, for an unknown name, a value
    /// of the wrong kind, or a number that is negative, not finite, not
    /// whole where a count is needed, or too large for its field; the
    /// ranges themselves (a TTL from 10 ms to 24 h) are checked where the
    /// options are used, as for options set in Rust.
    pub fn set(&mut self, name: &str, given: Given, unit: TimeUnit) -> Result<()> {
        let Some(&(_, setter)) = OPTIONS.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = OPTIONS.iter().map(|(n, _)| *n).collect();
            return Err(Error::invalid(format!(
                "there is no option {name:?}: the options are {}",
                names.join(", ")
            )));
        };
        match (setter, given) {
            (Setter::Duration(set), Given::Number(n)) => set(self, duration(name, n, unit)?),
            (Setter::Bool(set), Given::Bool(b)) => set(self, b),
            (Setter::Count(set), Given::Number(n)) => set(self, count(name, n)?),
            (Setter::Duration(_), Given::Bool(_)) => {
                return Err(wrong_kind(name, &format!("a number of {}", unit.name())))
            }
            (Setter::Bool(_), Given::Number(_)) => return Err(wrong_kind(name, "a boolean")),
            (Setter::Count(_), Given::Bool(_)) => return Err(wrong_kind(name, "a whole number")),
        }
        Ok(())
    }

    /// The options of `text`: one `name=value` per line, a duration in
    /// `unit` or a count as a decimal number, a boolean as `true` or
    /// `false` (how the C ABI passes them, in one buffer).
    pub fn from_lines(text: &[u8], unit: TimeUnit) -> Result<Options> {
        let mut options = Options::default();
        let text = std::str::from_utf8(text)
            .map_err(|_| Error::invalid("the options are not UTF-8 text"))?;
        for line in text.lines().filter(|l| !l.is_empty()) {
            let Some((name, value)) = line.split_once('=') else {
                return Err(Error::invalid(format!(
                    "option line {line:?} is not name=value"
                )));
            };
            let given = match value {
                "true" => Given::Bool(true),
                "false" => Given::Bool(false),
                _ => Given::Number(value.parse().map_err(|_| {
                    Error::invalid(format!("option {name} has no value of its kind: {value:?}"))
                })?),
            };
            options.set(name, given, unit)?;
        }
        Ok(options)
    }
}

fn wrong_kind(name: &str, wanted: &str) -> Error {
    Error::invalid(format!("{name} must be {wanted}"))
}

fn duration(name: &str, n: f64, unit: TimeUnit) -> Result<Duration> {
    if !n.is_finite() || n < 0.0 {
        return Err(Error::invalid(format!(
            "{name} must be a finite number of {} from 0 up, not {n}",
            unit.name()
        )));
    }
    Duration::try_from_secs_f64(n / unit.per_second())
        .map_err(|_| Error::invalid(format!("{name} {n} {} is too long", unit.name())))
}

fn count(name: &str, n: f64) -> Result<u32> {
    if n.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&n) {
        return Err(Error::invalid(format!(
            "{name} {n} is out of range: it must be a whole number from 1 up"
        )));
    }
    Ok(n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_set_in_each_unit() {
        let mut o = Options::default();
        o.set("ttl", Given::Number(1.5), TimeUnit::Seconds).unwrap();
        o.set("wait", Given::Number(250.0), TimeUnit::Millis)
            .unwrap();
        o.set("max_hold", Given::Number(2e9), TimeUnit::Nanos)
            .unwrap();
        o.set("renew", Given::Bool(false), TimeUnit::Nanos).unwrap();
        o.set("weight", Given::Number(3.0), TimeUnit::Nanos)
            .unwrap();
        assert_eq!(
            o,
            Options {
                ttl: Some(Duration::from_millis(1500)),
                wait: Some(Duration::from_millis(250)),
                renew: Some(false),
                max_hold: Some(Duration::from_secs(2)),
                weight: Some(3),
            }
        );
    }

    #[test]
    fn bad_names_kinds_and_numbers_are_invalid_naming_the_option() {
        let mut o = Options::default();
        let err = |r: Result<()>| r.unwrap_err().to_string();
        let s = TimeUnit::Seconds;
        assert!(err(o.set("wiat", Given::Number(1.0), s))
            .contains("no option \"wiat\": the options are ttl, wait, renew, max_hold, weight"));
        assert!(err(o.set("ttl", Given::Bool(true), s)).contains("ttl must be a number of seconds"));
        assert!(err(o.set("renew", Given::Number(1.0), s)).contains("renew must be a boolean"));
        assert!(err(o.set("ttl", Given::Number(-1.0), s)).contains("ttl must be a finite number"));
        assert!(err(o.set("wait", Given::Number(f64::NAN), s)).contains("wait must be"));
        assert!(err(o.set("weight", Given::Number(1.5), s)).contains("weight 1.5 is out of range"));
        assert!(err(o.set("weight", Given::Number(1e12), s)).contains("out of range"));
        assert_eq!(o, Options::default(), "nothing set by a refused value");
    }

    #[test]
    fn lines_carry_every_kind_and_refuse_what_is_not_name_equals_value() {
        let o =
            Options::from_lines(b"ttl=1000000\nrenew=false\nweight=2\n", TimeUnit::Nanos).unwrap();
        assert_eq!(o.ttl, Some(Duration::from_millis(1)));
        assert_eq!(o.renew, Some(false));
        assert_eq!(o.weight, Some(2));
        assert_eq!(
            Options::from_lines(b"", TimeUnit::Nanos).unwrap(),
            Options::default()
        );
        for bad in [&b"ttl"[..], b"ttl=x", b"\xff=1", b"nope=1"] {
            let e = Options::from_lines(bad, TimeUnit::Nanos).unwrap_err();
            assert_eq!(e.code(), crate::Code::Invalid, "{e}");
        }
    }
}
