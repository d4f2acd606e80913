//! The options record as every binding fills it: an option by its name,
//! from what the caller passed (a number in the language's unit of time,
//! a boolean, or a text). The table of names, the kind each takes and every message
//! about a bad value live here once, so that a new option is a field of
//! [`Options`] and a row below, and no binding's code changes.

use crate::error::{Error, Result};
use crate::options::Options;
use std::time::Duration;

/// What a caller passed for an option, in its language's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    /// A number: a duration in the binding's [`TimeUnit`], or a count.
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// A text (`data`).
    Text(String),
}

impl Given {
    fn kind(&self) -> &'static str {
        match self {
            Given::Number(_) => "a number",
            Given::Bool(_) => "a boolean",
            Given::Text(_) => "a text",
        }
    }
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
    Text(fn(&mut Options, String)),
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
    ("data", Setter::Text(|o, t| o.data = Some(t.into()))),
];

/// The options record as a binding fills it, by each option's name:
/// binding plumbing, reached as `tinystore::binding::GivenOptions` and
/// hidden from the crate's docs (a Rust program sets [`Options`]' fields).
pub trait GivenOptions: Sized {
    /// Whether `name` (snake_case) is an option.
    fn is_option(name: &str) -> bool;

    /// Sets the option `name` (snake_case) from `given`, durations in
    /// `unit`. `invalid`, naming the option, for an unknown name, a value
    /// of the wrong kind, or a number that is negative, not finite, not
    /// whole where a count is needed, or too large for its field; the
    /// ranges themselves (a TTL from 10 ms to 24 h) are checked where the
    /// options are used, as for options set in Rust.
    fn set(&mut self, name: &str, given: Given, unit: TimeUnit) -> Result<()>;

    /// The options of `text`: one `name=value` per line, a duration in
    /// `unit` or a count as a decimal number, a boolean as `true` or
    /// `false`, a text (`data`) as its bytes with `%`, line feed and
    /// carriage return written `%25`, `%0A` and `%0D` (how the C ABI passes
    /// them, in one buffer). A text that is not UTF-8 once decoded is
    /// `invalid`, naming the option.
    fn from_lines(text: &[u8], unit: TimeUnit) -> Result<Self>;
}

impl GivenOptions for Options {
    fn is_option(name: &str) -> bool {
        OPTIONS.iter().any(|(n, _)| *n == name)
    }

    fn set(&mut self, name: &str, given: Given, unit: TimeUnit) -> Result<()> {
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
            (Setter::Text(set), Given::Text(t)) => {
                crate::lease_data::check_data(&t)?;
                set(self, t)
            }
            (Setter::Duration(_), given) => {
                return Err(wrong_kind(
                    name,
                    &format!("a number of {}", unit.name()),
                    &given,
                ))
            }
            (Setter::Bool(_), given) => return Err(wrong_kind(name, "a boolean", &given)),
            (Setter::Count(_), given) => return Err(wrong_kind(name, "a whole number", &given)),
            (Setter::Text(_), given) => return Err(wrong_kind(name, "a text", &given)),
        }
        Ok(())
    }

    fn from_lines(text: &[u8], unit: TimeUnit) -> Result<Options> {
        let mut options = Options::default();
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Some(at) = line.iter().position(|&b| b == b'=') else {
                return Err(Error::invalid(format!(
                    "option line {:?} is not name=value",
                    String::from_utf8_lossy(line)
                )));
            };
            let (name, value) = (&line[..at], &line[at + 1..]);
            let name = std::str::from_utf8(name)
                .map_err(|_| Error::invalid("an option's name is not UTF-8 text"))?;
            if matches!(setter_of(name), Some(Setter::Text(_))) {
                let text = String::from_utf8(percent_decoded(name, value)?)
                    .map_err(|_| Error::invalid(format!("{name} is not UTF-8 text")))?;
                options.set(name, Given::Text(text), unit)?;
                continue;
            }
            let value = std::str::from_utf8(value)
                .map_err(|_| Error::invalid(format!("option {name}'s value is not UTF-8 text")))?;
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

fn wrong_kind(name: &str, wanted: &str, given: &Given) -> Error {
    Error::invalid(format!("{name} must be {wanted}, not {}", given.kind()))
}

fn setter_of(name: &str) -> Option<Setter> {
    OPTIONS.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
}

/// `value` with each `%XX` (two hex digits) turned back into its byte.
fn percent_decoded(name: &str, value: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(value.len());
    let mut rest = value;
    while let Some((&b, after)) = rest.split_first() {
        if b != b'%' {
            out.push(b);
            rest = after;
            continue;
        }
        let byte = after
            .get(..2)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .ok_or_else(|| {
                Error::invalid(format!("{name} has a % not followed by two hex digits"))
            })?;
        out.push(byte);
        rest = &after[2..];
    }
    Ok(out)
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
        o.set("data", Given::Text("worker 3".into()), TimeUnit::Nanos)
            .unwrap();
        assert_eq!(
            o,
            Options {
                ttl: Some(Duration::from_millis(1500)),
                wait: Some(Duration::from_millis(250)),
                renew: Some(false),
                max_hold: Some(Duration::from_secs(2)),
                weight: Some(3),
                data: Some("worker 3".into()),
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
        assert!(
            err(o.set("data", Given::Number(1.0), s)).contains("data must be a text, not a number")
        );
        assert!(err(o.set("ttl", Given::Text("1".into()), s)).contains("not a text"));
        assert!(err(o.set("data", Given::Text("x".repeat(1025)), s))
            .contains("data must be at most 1024 bytes, not 1025"));
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
        let o = Options::from_lines(
            b"data=50%25 of\r\nwait=0\ndata=a%0Ab=%E2%9C%93\n",
            TimeUnit::Nanos,
        )
        .unwrap();
        assert_eq!(o.data.as_deref(), Some("a\nb=\u{2713}"));
        assert_eq!(o.wait, Some(Duration::ZERO));
        for bad in [
            &b"ttl"[..],
            b"ttl=x",
            b"\xff=1",
            b"nope=1",
            b"data=%ff",
            b"data=\xff",
            b"data=50%",
            b"data=%zz",
        ] {
            let e = Options::from_lines(bad, TimeUnit::Nanos).unwrap_err();
            assert_eq!(e.code(), crate::Code::Invalid, "{e}");
        }
    }
}
