//! The guard's SQL, written once for every binding: the register table's
//! migration, the check-and-record upsert and the read of a recorded fence,
//! per dialect and placeholder style.
//!
//! The check-and-record changes one row when the write is accepted (a first
//! write inserts; a fence equal to or above the recorded one replaces it)
//! and none when it is refused. A recorded fence that is not 40 digits
//! changes nothing either, so that the read after a refusal reports it as
//! `corrupt` instead of overwriting it. Fences are compared as their
//! 40-digit text, which orders as the numbers do (`collate "C"` on
//! PostgreSQL).

use crate::error::{Error, Result};
use std::sync::OnceLock;

/// The register table's name.
pub const TABLE: &str = "tinystore_fences";

/// The SQL a guard speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// SQLite 3.24 or later (upsert).
    Sqlite,
    /// PostgreSQL 9.5 or later (`on conflict`).
    Postgres,
}

impl Dialect {
    /// Parses `"sqlite"` or `"postgres"` (also `"postgresql"`).
    pub fn parse(text: &str) -> Result<Dialect> {
        match text {
            "sqlite" => Ok(Dialect::Sqlite),
            "postgres" | "postgresql" => Ok(Dialect::Postgres),
            _ => Err(Error::invalid(format!(
                "guard dialect {text:?} is not known: use \"sqlite\" or \"postgres\""
            ))),
        }
    }

    /// The placeholders its usual drivers take: `?` for SQLite, `$1` for
    /// PostgreSQL.
    pub fn placeholders(self) -> Placeholders {
        match self {
            Dialect::Sqlite => Placeholders::Question,
            Dialect::Postgres => Placeholders::Dollar,
        }
    }
}

/// How a driver marks a statement's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placeholders {
    /// `?`, in order (SQLite drivers, Go's MySQL-style drivers).
    Question,
    /// `$1`, `$2` (PostgreSQL's own, `pg`, `tokio-postgres`, pgx).
    Dollar,
    /// `%s`, in order (Python's psycopg).
    Percent,
}

impl Placeholders {
    /// Parses `"?"`, `"$1"` or `"%s"`.
    pub fn parse(text: &str) -> Result<Placeholders> {
        match text {
            "?" => Ok(Placeholders::Question),
            "$1" => Ok(Placeholders::Dollar),
            "%s" => Ok(Placeholders::Percent),
            _ => Err(Error::invalid(format!(
                "placeholder style {text:?} is not known: use \"?\", \"$1\" or \"%s\""
            ))),
        }
    }

    /// The mark of the `n`th parameter (1-based).
    fn mark(self, n: usize) -> String {
        match self {
            Placeholders::Question => "?".to_string(),
            Placeholders::Dollar => format!("${n}"),
            Placeholders::Percent => "%s".to_string(),
        }
    }
}

/// The three statements of a guard, for one dialect and placeholder style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statements {
    /// Makes the register table if it is missing; safe to run again.
    pub migration: String,
    /// Checks and records: parameters (resource, fence text); one row
    /// changed is accepted, none is refused.
    pub check: String,
    /// Reads the recorded fence: parameter (resource); one row or none.
    pub read: String,
}

impl Statements {
    /// The statements for `dialect` with `placeholders`.
    pub fn new(dialect: Dialect, placeholders: Placeholders) -> Statements {
        let (resource, fence) = (placeholders.mark(1), placeholders.mark(2));
        let (migration, well_formed) = match dialect {
            Dialect::Sqlite => (
                format!("CREATE TABLE IF NOT EXISTS {TABLE} (resource TEXT PRIMARY KEY NOT NULL, fence TEXT NOT NULL)"),
                format!("length({TABLE}.fence) = 40 AND {TABLE}.fence NOT GLOB '*[^0-9]*'"),
            ),
            Dialect::Postgres => (
                format!("CREATE TABLE IF NOT EXISTS {TABLE} (resource text COLLATE \"C\" PRIMARY KEY, fence text COLLATE \"C\" NOT NULL)"),
                format!("{TABLE}.fence ~ '^[0-9]{{40}}$'"),
            ),
        };
        Statements {
            migration,
            check: format!(
                "INSERT INTO {TABLE} (resource, fence) VALUES ({resource}, {fence}) \
                 ON CONFLICT (resource) DO UPDATE SET fence = excluded.fence \
                 WHERE {TABLE}.fence <= excluded.fence AND {well_formed}"
            ),
            read: format!("SELECT fence FROM {TABLE} WHERE resource = {resource}"),
        }
    }

    /// The statements for `dialect` with its usual placeholders.
    pub fn of(dialect: Dialect) -> Statements {
        Statements::new(dialect, dialect.placeholders())
    }
}

impl Statements {
    /// The statements of `dialect` with `placeholders`, made once.
    pub fn cached(dialect: Dialect, placeholders: Placeholders) -> &'static Statements {
        static MADE: [[OnceLock<Statements>; 3]; 2] = [
            [OnceLock::new(), OnceLock::new(), OnceLock::new()],
            [OnceLock::new(), OnceLock::new(), OnceLock::new()],
        ];
        let d = match dialect {
            Dialect::Sqlite => 0,
            Dialect::Postgres => 1,
        };
        let p = match placeholders {
            Placeholders::Question => 0,
            Placeholders::Dollar => 1,
            Placeholders::Percent => 2,
        };
        MADE[d][p].get_or_init(|| Statements::new(dialect, placeholders))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_style_marks_resource_then_fence() {
        let dollar = Statements::new(Dialect::Postgres, Placeholders::Dollar);
        assert!(dollar.check.contains("VALUES ($1, $2)"), "{}", dollar.check);
        assert!(dollar.read.ends_with("resource = $1"));
        let percent = Statements::new(Dialect::Postgres, Placeholders::Percent);
        assert!(percent.check.contains("VALUES (%s, %s)"));
        assert_eq!(
            percent.check.matches('%').count(),
            2,
            "a stray % would break psycopg"
        );
        let question = Statements::of(Dialect::Sqlite);
        assert!(question.check.contains("VALUES (?, ?)"));
        assert_eq!(question.check.matches('?').count(), 2);
    }

    #[test]
    fn names_parse_or_say_what_is_known() {
        assert_eq!(Dialect::parse("postgresql").unwrap(), Dialect::Postgres);
        assert!(Dialect::parse("mysql")
            .unwrap_err()
            .message()
            .contains("sqlite"));
        assert_eq!(Placeholders::parse("%s").unwrap(), Placeholders::Percent);
        assert!(Placeholders::parse(":1").is_err());
    }
}
