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
//! PostgreSQL, `ascii_bin` on MySQL).
//!
//! MySQL and MariaDB have no `WHERE` on an upsert: the update keeps the
//! recorded fence unless the new one may replace it, and the rows it
//! reports tell less. A row updated to a new fence counts 2; an insert
//! counts 1; a row left as it was counts 0, or 1 when the client asked
//! for found rows (`CLIENT_FOUND_ROWS`, which mysql2 sets by default). So
//! only 2 proves acceptance there ([`Statements::accepted_changes`]); a 1
//! or a 0 reads the row to decide, with a locking read (`FOR UPDATE`,
//! which the upsert's own lock makes wait for nothing), since a plain read
//! in InnoDB's REPEATABLE READ would see the transaction's snapshot rather
//! than the row the upsert compared with.

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
    /// MySQL 8 or MariaDB 10.5 or later, InnoDB (`on duplicate key update`).
    Mysql,
}

impl Dialect {
    /// Parses `"sqlite"`, `"postgres"` (also `"postgresql"`) or `"mysql"`
    /// (also `"mariadb"`).
    pub fn parse(text: &str) -> Result<Dialect> {
        match text {
            "sqlite" => Ok(Dialect::Sqlite),
            "postgres" | "postgresql" => Ok(Dialect::Postgres),
            "mysql" | "mariadb" => Ok(Dialect::Mysql),
            _ => Err(Error::invalid(format!(
                "guard dialect {text:?} is not known: use \"sqlite\", \"postgres\" or \"mysql\""
            ))),
        }
    }

    /// The placeholders its usual drivers take: `?` for SQLite and MySQL,
    /// `$1` for PostgreSQL.
    pub fn placeholders(self) -> Placeholders {
        match self {
            Dialect::Sqlite | Dialect::Mysql => Placeholders::Question,
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
    /// How many times the fence follows the resource in `check`'s
    /// parameters (MySQL's upsert names it three times).
    pub fence_params: usize,
    /// The fewest rows `check` reports changed that prove the write was
    /// accepted; fewer read the row to decide.
    pub accepted_changes: u64,
}

impl Statements {
    /// The statements for `dialect` with `placeholders`.
    pub fn new(dialect: Dialect, placeholders: Placeholders) -> Statements {
        if dialect == Dialect::Mysql {
            return Statements::mysql(placeholders);
        }
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
            Dialect::Mysql => unreachable!("made by Statements::mysql"),
        };
        Statements {
            migration,
            check: format!(
                "INSERT INTO {TABLE} (resource, fence) VALUES ({resource}, {fence}) \
                 ON CONFLICT (resource) DO UPDATE SET fence = excluded.fence \
                 WHERE {TABLE}.fence <= excluded.fence AND {well_formed}"
            ),
            read: format!("SELECT fence FROM {TABLE} WHERE resource = {resource}"),
            fence_params: 1,
            accepted_changes: 1,
        }
    }

    /// MySQL's and MariaDB's: the resource as bytes (`varbinary`, compared
    /// byte for byte, at most 1,024), the fence as ASCII text compared
    /// byte for byte, in InnoDB (the register must be in the caller's
    /// transaction).
    fn mysql(placeholders: Placeholders) -> Statements {
        let mark = |n| placeholders.mark(n);
        let (resource, fence, compared, replacing) = (mark(1), mark(2), mark(3), mark(4));
        Statements {
            migration: format!(
                "CREATE TABLE IF NOT EXISTS {TABLE} (resource VARBINARY(1024) NOT NULL PRIMARY KEY, \
                 fence VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL) ENGINE=InnoDB"
            ),
            check: format!(
                "INSERT INTO {TABLE} (resource, fence) VALUES ({resource}, {fence}) \
                 ON DUPLICATE KEY UPDATE fence = IF(fence <= {compared} AND fence REGEXP '^[0-9]{{40}}$', {replacing}, fence)"
            ),
            read: format!("SELECT fence FROM {TABLE} WHERE resource = {resource} FOR UPDATE"),
            fence_params: 3,
            accepted_changes: 2,
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
        static MADE: [[OnceLock<Statements>; 3]; 3] = [
            [OnceLock::new(), OnceLock::new(), OnceLock::new()],
            [OnceLock::new(), OnceLock::new(), OnceLock::new()],
            [OnceLock::new(), OnceLock::new(), OnceLock::new()],
        ];
        let d = match dialect {
            Dialect::Sqlite => 0,
            Dialect::Postgres => 1,
            Dialect::Mysql => 2,
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
    fn mysql_names_the_fence_three_times_and_needs_two_rows() {
        for placeholders in [Placeholders::Question, Placeholders::Percent] {
            let mysql = Statements::new(Dialect::Mysql, placeholders);
            let mark = if placeholders == Placeholders::Question {
                "?"
            } else {
                "%s"
            };
            assert_eq!(mysql.check.matches(mark).count(), 1 + mysql.fence_params);
            assert_eq!(
                mysql.check.matches('%').count(),
                if mark == "%s" { 4 } else { 0 }
            );
            assert!(mysql.read.ends_with("FOR UPDATE"), "{}", mysql.read);
            assert_eq!(mysql.accepted_changes, 2);
        }
        let sqlite = Statements::of(Dialect::Sqlite);
        assert_eq!((sqlite.fence_params, sqlite.accepted_changes), (1, 1));
    }

    #[test]
    fn names_parse_or_say_what_is_known() {
        assert_eq!(Dialect::parse("postgresql").unwrap(), Dialect::Postgres);
        assert_eq!(Dialect::parse("mariadb").unwrap(), Dialect::Mysql);
        assert!(Dialect::parse("oracle")
            .unwrap_err()
            .message()
            .contains("sqlite"));
        assert_eq!(Placeholders::parse("%s").unwrap(), Placeholders::Percent);
        assert!(Placeholders::parse(":1").is_err());
    }
}
