//! A driver's or an SDK's own error, as a binding describes it (what the
//! driver reports: SQLSTATE, SQLite's code, HTTP status, error code), and
//! its one classification, the same in every language.
//!
//! The policy (docs/guards.md, "The driver's own errors"): the guard's own
//! refusals are tinystore errors; an error the driver raised stays the
//! driver's. Python and TypeScript raise the driver's own error as it was;
//! Rust and Go return a tinystore error of the class's [`Class::code`]
//! whose cause (`source()`, `errors.As`) is the driver's. The one
//! exception is a missing register table, which is the guard's own word
//! (`invalid`, saying how to make it), with the driver's error as its
//! cause. `is_serialization_failure` (one name per language) tells a
//! serialization failure in either form.

use crate::error::{Code, Error};

/// What a driver reported of a failed step. Every field but `message` is
/// optional: a binding fills in what its driver gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriverFailure {
    /// The SQLSTATE (PostgreSQL, MySQL), such as `"40001"`.
    pub sqlstate: Option<String>,
    /// SQLite's result code, primary or extended (`5`, `517`).
    pub sqlite_code: Option<i32>,
    /// The HTTP status of an object store's answer.
    pub http_status: Option<u16>,
    /// A named code: a service's (`"AccessDenied"`, `"NoSuchBucket"`), a
    /// driver's (`"SQLITE_BUSY"`), or a socket's (`"ECONNREFUSED"`); the
    /// word `"connection"` for a connection the driver lost without a code;
    /// or a MySQL or MariaDB error number as decimal text (`"1142"`), the
    /// server's or the client library's.
    pub error_code: Option<String>,
    /// The driver's own text.
    pub message: String,
}

/// What kind of failure a driver's error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// The register table does not exist (the guard's own word: `invalid`).
    MissingTable,
    /// A concurrent transaction came first (SQLSTATE 40001 or 40P01, SQLite
    /// busy or locked): retry the whole transaction.
    Serialization,
    /// The database or the store refused the caller (SQLSTATE 42501, SQLite
    /// read-only, HTTP 401 or 403).
    Permission,
    /// The server could not be reached, or went away in the middle of the
    /// call (SQLSTATE class 08, 57P01-57P03, HTTP 5xx, a refused or reset
    /// connection).
    Unavailable,
    /// Any other failure of the driver.
    Other,
}

impl Class {
    /// The tinystore code of an error of this class.
    pub fn code(self) -> Code {
        match self {
            Class::MissingTable => Code::Invalid,
            Class::Serialization | Class::Other => Code::Io,
            Class::Permission => Code::Unauthorized,
            Class::Unavailable => Code::Unavailable,
        }
    }

    /// The class's name: `missing_table`, `serialization`, `permission`,
    /// `unavailable` or `other` (as the conformance scenarios spell it).
    pub fn name(self) -> &'static str {
        match self {
            Class::MissingTable => "missing_table",
            Class::Serialization => "serialization",
            Class::Permission => "permission",
            Class::Unavailable => "unavailable",
            Class::Other => "other",
        }
    }

    /// What the class means for the caller, for an error's message.
    fn advice(self) -> &'static str {
        match self {
            Class::MissingTable => "the register table is missing",
            Class::Serialization => {
                "a concurrent transaction came first (serialization failure): roll back and retry the whole transaction"
            }
            Class::Permission => "permission denied",
            Class::Unavailable => "the server could not be reached or went away",
            Class::Other => "the driver failed",
        }
    }
}

const SOCKET_CODES: [&str; 9] = [
    "ECONNREFUSED",
    "ECONNRESET",
    "ECONNABORTED",
    "EPIPE",
    "ETIMEDOUT",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "ENOTCONN",
    "connection",
];

impl DriverFailure {
    /// A failure with only the driver's text.
    pub fn new(message: impl Into<String>) -> DriverFailure {
        DriverFailure {
            message: message.into(),
            ..DriverFailure::default()
        }
    }

    /// Classifies the failure of a guard's own statement or request (so a
    /// missing table is the register's).
    pub fn class(&self) -> Class {
        let state = self.sqlstate.as_deref().unwrap_or("");
        let named = self.error_code.as_deref().unwrap_or("");
        let sqlite = self.sqlite_code.map(|c| c & 0xff);
        if matches!(state, "42P01" | "42S02")
            || named == "1146"
            || (sqlite == Some(1) || named.starts_with("SQLITE_ERROR") || state.is_empty())
                && self.message.contains("no such table")
        {
            return Class::MissingTable;
        }
        if matches!(state, "40001" | "40P01")
            || matches!(named, "1213" | "1205" | "1020")
            || matches!(
                named,
                "TransactionConflict" | "TransactionInProgressException"
            )
            || matches!(sqlite, Some(5) | Some(6))
            || named.starts_with("SQLITE_BUSY")
            || named.starts_with("SQLITE_LOCKED")
        {
            return Class::Serialization;
        }
        if state == "42501"
            || state.starts_with("28")
            || matches!(sqlite, Some(3) | Some(8) | Some(23))
            || named.starts_with("SQLITE_READONLY")
            || named.starts_with("SQLITE_PERM")
            || named.starts_with("SQLITE_AUTH")
            || matches!(self.http_status, Some(401) | Some(403))
            || matches!(
                named,
                "AccessDenied" | "Forbidden" | "InvalidAccessKeyId" | "SignatureDoesNotMatch"
            )
            // DynamoDB answers these with 400, not 403.
            || matches!(
                named,
                "AccessDeniedException"
                    | "UnrecognizedClientException"
                    | "MissingAuthenticationTokenException"
                    | "InvalidSignatureException"
                    | "ExpiredTokenException"
                    | "InvalidClientTokenId"
            )
            || matches!(named, "NOAUTH" | "NOPERM" | "WRONGPASS")
            || matches!(named, "1044" | "1045" | "1142" | "1143" | "1227" | "1370")
        {
            return Class::Permission;
        }
        if state.starts_with("08")
            || matches!(state, "57P01" | "57P02" | "57P03" | "53300")
            || self.http_status.is_some_and(|s| (500..600).contains(&s))
            || SOCKET_CODES.contains(&named)
            || matches!(named, "SlowDown" | "ServiceUnavailable" | "InternalError")
            || matches!(
                named,
                "ThrottlingError"
                    | "ThrottlingException"
                    | "ProvisionedThroughputExceeded"
                    | "ProvisionedThroughputExceededException"
                    | "RequestLimitExceeded"
                    | "InternalServerError"
            )
            || matches!(
                named,
                "LOADING" | "MASTERDOWN" | "CLUSTERDOWN" | "TRYAGAIN" | "READONLY" | "BUSY"
            )
            || matches!(
                named,
                "1040" | "1053" | "1927" | "2002" | "2003" | "2006" | "2013" | "2055" | "4031"
            )
        {
            return Class::Unavailable;
        }
        Class::Other
    }

    /// The tinystore error of this failure while `doing` (such as
    /// `guarding "chats/42"`): its class's code, a message naming what was
    /// done, what the class means and the driver's own text.
    pub fn error(&self, doing: &str) -> Error {
        let class = self.class();
        let mut reported = Vec::new();
        if let Some(state) = &self.sqlstate {
            reported.push(format!("SQLSTATE {state}"));
        }
        if let Some(code) = self.sqlite_code {
            reported.push(format!("SQLite code {code}"));
        }
        if let Some(status) = self.http_status {
            reported.push(format!("HTTP {status}"));
        }
        if let Some(code) = &self.error_code {
            reported.push(code.clone());
        }
        let reported = if reported.is_empty() {
            String::new()
        } else {
            format!(" ({})", reported.join(", "))
        };
        Error::new(
            class.code(),
            format!("{doing}: {}{reported}: {}", class.advice(), self.message),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(s: &str) -> DriverFailure {
        DriverFailure {
            sqlstate: Some(s.into()),
            ..DriverFailure::new("m")
        }
    }

    fn sqlite(code: i32, message: &str) -> DriverFailure {
        DriverFailure {
            sqlite_code: Some(code),
            ..DriverFailure::new(message)
        }
    }

    fn named(code: &str) -> DriverFailure {
        DriverFailure {
            error_code: Some(code.into()),
            ..DriverFailure::new("m")
        }
    }

    #[test]
    fn every_driver_names_a_missing_table_its_own_way() {
        assert_eq!(state("42P01").class(), Class::MissingTable);
        assert_eq!(state("42S02").class(), Class::MissingTable);
        let message = "no such table: tinystore_fences";
        assert_eq!(sqlite(1, message).class(), Class::MissingTable);
        assert_eq!(DriverFailure::new(message).class(), Class::MissingTable);
        assert_eq!(named("SQLITE_ERROR").class(), Class::Other);
        assert_eq!(sqlite(1, "syntax error").class(), Class::Other);
    }

    #[test]
    fn serialization_permission_and_unavailable_are_told_apart() {
        for f in [
            state("40001"),
            state("40P01"),
            sqlite(5, "busy"),
            sqlite(517, "busy snapshot"),
            named("SQLITE_BUSY"),
        ] {
            assert_eq!(f.class(), Class::Serialization, "{f:?}");
        }
        for f in [
            state("42501"),
            sqlite(8, "readonly"),
            named("AccessDenied"),
            named("SQLITE_READONLY"),
            named("NOAUTH"),
            named("NOPERM"),
            named("AccessDeniedException"),
            named("UnrecognizedClientException"),
        ] {
            assert_eq!(f.class(), Class::Permission, "{f:?}");
        }
        let forbidden = DriverFailure {
            http_status: Some(403),
            ..DriverFailure::new("m")
        };
        assert_eq!(forbidden.class(), Class::Permission);
        for f in [
            state("08006"),
            state("57P01"),
            named("ECONNREFUSED"),
            named("connection"),
            named("LOADING"),
            named("CLUSTERDOWN"),
        ] {
            assert_eq!(f.class(), Class::Unavailable, "{f:?}");
        }
        assert_eq!(state("23505").class(), Class::Other);
        assert_eq!(named("WRONGTYPE").class(), Class::Other);
    }

    #[test]
    fn the_error_names_what_was_done_the_class_and_the_driver() {
        let err = state("40001").error("guarding \"chats/42\"");
        assert_eq!(err.code(), Code::Io);
        let m = err.message();
        assert!(
            m.contains("chats/42") && m.contains("SQLSTATE 40001") && m.contains("retry"),
            "{m}"
        );
        assert_eq!(named("ECONNRESET").error("x").code(), Code::Unavailable);
        assert_eq!(named("AccessDenied").error("x").code(), Code::Unauthorized);
    }

    #[test]
    fn mysql_error_numbers_are_classified() {
        for (number, class) in [
            ("1146", Class::MissingTable),
            ("1213", Class::Serialization),
            ("1205", Class::Serialization),
            ("1142", Class::Permission),
            ("1045", Class::Permission),
            ("2013", Class::Unavailable),
            ("1927", Class::Unavailable),
            ("1062", Class::Other),
        ] {
            assert_eq!(named(number).class(), class, "{number}");
        }
    }
}
