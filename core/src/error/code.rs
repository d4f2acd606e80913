//! The one table of error codes: each code's wire spelling, its number in
//! the C ABI, and the name of its error in each language. Every binding
//! maps errors from this table, or checks its own names against it in a
//! test, so a code added here reaches every language or fails its tests.

use std::fmt;

/// The error codes of docs/locks.md: the same set on the wire and in every
/// language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// A wait ran out before the key was free.
    Timeout,
    /// The lease ran out, was released, or its store or connection went away.
    LeaseLost,
    /// The store directory is owned by another process that does not serve it.
    InUse,
    /// The store or connection was closed.
    Closed,
    /// A bad name, key, TTL, fence text or argument.
    Invalid,
    /// A documented limit was passed.
    Limit,
    /// A TCP client did not authenticate, or gave a wrong token; or a TLS
    /// handshake was refused (a certificate, either side's).
    Unauthorized,
    /// `kv.db` could not be read as a tinystore database.
    Corrupt,
    /// An operating-system I/O error.
    Io,
    /// The server could not be reached.
    Unavailable,
    /// A bug or an unexpected state; never the caller's fault.
    Internal,
    /// A guard refused a write: its fence is below the largest one recorded
    /// for that resource ([`Error::stale`](crate::Error::stale) carries the
    /// three).
    Stale,
}

/// One code's row of the table.
struct Row {
    wire: &'static str,
    number: u32,
    python: &'static str,
    node: &'static str,
    go: &'static str,
}

const fn row(
    wire: &'static str,
    number: u32,
    python: &'static str,
    node: &'static str,
    go: &'static str,
) -> Row {
    Row {
        wire,
        number,
        python,
        node,
        go,
    }
}

impl Code {
    /// Every code, in the order docs/locks.md lists them.
    pub const ALL: [Code; 12] = [
        Code::Timeout,
        Code::LeaseLost,
        Code::InUse,
        Code::Closed,
        Code::Invalid,
        Code::Limit,
        Code::Unauthorized,
        Code::Corrupt,
        Code::Io,
        Code::Unavailable,
        Code::Internal,
        Code::Stale,
    ];

    /// The table: wire spelling, C ABI number, and the Python class, Node
    /// class and Go name (`Code<name>`, `Err<name>`) of its error.
    const fn row(self) -> Row {
        match self {
            Code::Timeout => row("timeout", 1, "Timeout", "WaitTimeoutError", "Timeout"),
            Code::LeaseLost => row("lease_lost", 2, "LeaseLost", "LeaseLostError", "LeaseLost"),
            Code::InUse => row("in_use", 3, "InUse", "InUseError", "InUse"),
            Code::Closed => row("closed", 4, "Closed", "ClosedError", "Closed"),
            Code::Invalid => row("invalid", 5, "Invalid", "InvalidError", "Invalid"),
            Code::Limit => row("limit", 6, "Limit", "LimitError", "Limit"),
            Code::Unauthorized => row(
                "unauthorized",
                7,
                "Unauthorized",
                "UnauthorizedError",
                "Unauthorized",
            ),
            Code::Corrupt => row("corrupt", 8, "Corrupt", "CorruptError", "Corrupt"),
            Code::Io => row("io", 9, "Io", "IoError", "IO"),
            Code::Unavailable => row(
                "unavailable",
                10,
                "Unavailable",
                "UnavailableError",
                "Unavailable",
            ),
            Code::Internal => row(
                "internal",
                11,
                "Internal",
                "TinystoreInternalError",
                "Internal",
            ),
            Code::Stale => row("stale", 12, "Stale", "StaleError", "Stale"),
        }
    }

    /// The code's spelling on the wire, e.g. `"lease_lost"`.
    pub fn as_str(self) -> &'static str {
        self.row().wire
    }

    /// Parses a code's wire spelling; `None` for an unknown one.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// A code's number in the C ABI and the name of its error in each
/// binding's language: binding plumbing, reached as
/// `tinystore::binding::CodeNames` and hidden from the crate's docs.
pub trait CodeNames: Sized {
    /// The code's number in the C ABI (`TsError.code`); never 0, which
    /// says "no error" there.
    fn number(self) -> u32;
    /// The code of a C ABI number; `None` for an unknown one.
    fn from_number(number: u32) -> Option<Self>;
    /// The Python exception class of the code, e.g. `"LeaseLost"`.
    fn python_class(self) -> &'static str;
    /// The Node (TypeScript) error class of the code, e.g.
    /// `"LeaseLostError"`.
    fn node_class(self) -> &'static str;
    /// The Go name of the code, e.g. `"LeaseLost"` for `CodeLeaseLost`
    /// and `ErrLeaseLost`.
    fn go_name(self) -> &'static str;
}

impl CodeNames for Code {
    fn number(self) -> u32 {
        self.row().number
    }

    fn from_number(number: u32) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.number() == number)
    }

    fn python_class(self) -> &'static str {
        self.row().python
    }

    fn node_class(self) -> &'static str {
        self.row().node
    }

    fn go_name(self) -> &'static str {
        self.row().go
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::{Code, CodeNames};
    use std::collections::HashSet;

    /// `ALL` holds each code once, and every column of the table is
    /// unique, so that no two codes can be taken for each other anywhere.
    #[test]
    fn every_column_is_unique_and_all_lists_each_code_once() {
        let columns: [fn(Code) -> String; 5] = [
            |c| c.as_str().to_string(),
            |c| c.number().to_string(),
            |c| c.python_class().to_string(),
            |c| c.node_class().to_string(),
            |c| c.go_name().to_string(),
        ];
        for column in columns {
            let seen: HashSet<String> = Code::ALL.into_iter().map(column).collect();
            assert_eq!(seen.len(), Code::ALL.len());
        }
        for code in Code::ALL {
            assert_ne!(code.number(), 0, "{code}: 0 means no error in the C ABI");
            assert_eq!(Code::parse(code.as_str()), Some(code));
            assert_eq!(Code::from_number(code.number()), Some(code));
        }
        let numbers: Vec<u32> = Code::ALL.into_iter().map(Code::number).collect();
        let contiguous: Vec<u32> = (1..=Code::ALL.len() as u32).collect();
        assert_eq!(
            numbers, contiguous,
            "the C numbers are 1, 2, ... in ALL's order"
        );
    }
}
