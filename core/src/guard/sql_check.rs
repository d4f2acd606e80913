//! The SQL guard's check-and-record as a state machine that does no I/O:
//! it says which statement to run next and takes what the driver
//! observed. Every binding drives it on its users' own handle, so the
//! sequence, the decisions and every message live here once.
//!
//! The sequence: the upsert of [`Statements::check`] (a row changed is
//! accepted: [`Statements::accepted_changes`] rows, 2 on MySQL, where a
//! row left as it was may count 1); when it changed fewer, the read of
//! [`Statements::read`], whose
//! row [`refused`] decides (equal: accepted, larger:
//! `stale`, malformed: `corrupt`). A statement's failure is classified by
//! [`DriverFailure::class`].
//!
//! ```
//! use tinystore::guard::sql_check::{SqlCheck, SqlObserved, SqlStep};
//! use tinystore::guard::{Dialect, Verdict};
//! use tinystore::Fence;
//! let mut check = SqlCheck::new(Dialect::Sqlite, Dialect::Sqlite.placeholders(), "chats/42", Fence::from_u128(7), true);
//! let SqlStep::Execute { sql, params } = check.start() else { unreachable!() };
//! assert!(sql.starts_with("INSERT INTO tinystore_fences"));
//! assert_eq!(params[0], "chats/42");
//! // ... the binding runs it in the caller's transaction: one row changed.
//! assert_eq!(check.observe(SqlObserved::Changed(1)), SqlStep::Done(Verdict::Accepted));
//! ```

use super::decide::{missing_table, not_in_transaction, refused};
use super::driver::{Class, DriverFailure};
use super::resource::check_resource;
use super::sql::{Dialect, Placeholders, Statements};
use super::verdict::Verdict;
use crate::error::Error;
use crate::fence::Fence;

/// What the binding does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlStep {
    /// Run `sql` with `params` (text, in order) in the caller's transaction
    /// and observe the rows it changed ([`SqlObserved::Changed`]).
    Execute {
        /// The statement, in the binding's placeholder style.
        sql: &'static str,
        /// Its parameters: the resource, then the fence's 40 digits.
        params: Vec<String>,
    },
    /// Run `sql` with `params` and observe its first row's first column as
    /// text, or none ([`SqlObserved::Row`]).
    Query {
        /// The statement, in the binding's placeholder style.
        sql: &'static str,
        /// Its parameter: the resource.
        params: Vec<String>,
    },
    /// The protocol ended.
    Done(Verdict),
}

/// What the binding observed of the step it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlObserved {
    /// The rows an [`SqlStep::Execute`] changed (as the driver counts them).
    Changed(u64),
    /// The text an [`SqlStep::Query`] read: its first row's first column,
    /// or `None` for no row.
    Row(Option<String>),
    /// The step failed in the driver.
    Failed(DriverFailure),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Checked,
    Read,
    Done,
}

/// One check-and-record of `fence` for `resource`.
#[derive(Debug, Clone)]
pub struct SqlCheck {
    statements: &'static Statements,
    resource: String,
    fence: Fence,
    in_transaction: bool,
    state: State,
}

impl SqlCheck {
    /// A check of `fence` for `resource` in `dialect` with `placeholders`;
    /// `in_transaction` is whether the caller's handle has a transaction
    /// open (or opens one before the statement, as Python's sqlite3 does).
    pub fn new(
        dialect: Dialect,
        placeholders: Placeholders,
        resource: &str,
        fence: Fence,
        in_transaction: bool,
    ) -> SqlCheck {
        SqlCheck {
            statements: Statements::cached(dialect, placeholders),
            resource: resource.to_string(),
            fence,
            in_transaction,
            state: State::Start,
        }
    }

    /// The first step: the check-and-record, or the end when the resource
    /// is bad (`invalid`) or no transaction is open (`invalid`).
    pub fn start(&mut self) -> SqlStep {
        if self.state != State::Start {
            return self.misuse("start");
        }
        if let Err(err) = check_resource(&self.resource) {
            return self.end(Verdict::Refused(err));
        }
        if !self.in_transaction {
            return self.end(Verdict::Refused(not_in_transaction(&self.resource)));
        }
        self.state = State::Checked;
        let fence = self.fence.text();
        let mut params = vec![self.resource.clone()];
        params.resize(1 + self.statements.fence_params, fence);
        SqlStep::Execute {
            sql: &self.statements.check,
            params,
        }
    }

    /// The step after `observed`, the outcome of the step last given.
    pub fn observe(&mut self, observed: SqlObserved) -> SqlStep {
        match (self.state, observed) {
            (State::Checked | State::Read, SqlObserved::Failed(failure)) => {
                let verdict = self.failed(&failure);
                self.end(verdict)
            }
            (State::Checked, SqlObserved::Changed(n)) if n >= self.statements.accepted_changes => {
                self.end(Verdict::Accepted)
            }
            (State::Checked, SqlObserved::Changed(_)) => {
                self.state = State::Read;
                SqlStep::Query {
                    sql: &self.statements.read,
                    params: vec![self.resource.clone()],
                }
            }
            (State::Read, SqlObserved::Row(recorded)) => {
                let verdict = match refused(&self.resource, self.fence, recorded.as_deref()) {
                    Ok(()) => Verdict::Accepted,
                    Err(err) => Verdict::Refused(err),
                };
                self.end(verdict)
            }
            (_, observed) => self.misuse(&format!("{observed:?}")),
        }
    }

    fn failed(&self, failure: &DriverFailure) -> Verdict {
        match failure.class() {
            Class::MissingTable => Verdict::Refused(missing_table(&self.resource)),
            _ => Verdict::Driver(failure.error(&format!("guarding {:?}", self.resource))),
        }
    }

    fn end(&mut self, verdict: Verdict) -> SqlStep {
        self.state = State::Done;
        SqlStep::Done(verdict)
    }

    fn misuse(&mut self, what: &str) -> SqlStep {
        let state = self.state;
        self.end(Verdict::Refused(Error::internal(format!(
            "the guard of {:?} was given {what} in state {state:?}",
            self.resource
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    fn check(fence: u128, in_transaction: bool) -> SqlCheck {
        SqlCheck::new(
            Dialect::Sqlite,
            Placeholders::Question,
            "chats/42",
            Fence::from_u128(fence),
            in_transaction,
        )
    }

    fn verdict(step: SqlStep) -> Verdict {
        match step {
            SqlStep::Done(v) => v,
            other => panic!("not done: {other:?}"),
        }
    }

    #[test]
    fn no_row_changed_reads_and_decides() {
        let mut c = check(7, true);
        assert!(matches!(c.start(), SqlStep::Execute { .. }));
        let read = c.observe(SqlObserved::Changed(0));
        assert!(matches!(read, SqlStep::Query { ref params, .. } if params == &["chats/42"]));
        let larger = Fence::from_u128(9).text();
        let Verdict::Refused(err) = verdict(c.observe(SqlObserved::Row(Some(larger)))) else {
            panic!("accepted")
        };
        assert_eq!(
            err.stale_detail().map(|s| (s.fence, s.largest)),
            Some((7, 9))
        );
    }

    #[test]
    fn on_mysql_one_row_is_not_proof_and_the_fence_is_named_three_times() {
        let mut c = SqlCheck::new(
            Dialect::Mysql,
            Placeholders::Question,
            "chats/42",
            Fence::from_u128(7),
            true,
        );
        let SqlStep::Execute { params, .. } = c.start() else {
            panic!("no upsert")
        };
        let fence = Fence::from_u128(7).text();
        assert_eq!(params, ["chats/42", &fence, &fence, &fence]);
        // An insert, or a row left as it was under CLIENT_FOUND_ROWS: read.
        let read = c.observe(SqlObserved::Changed(1));
        assert!(matches!(read, SqlStep::Query { .. }), "{read:?}");
        let nine = Fence::from_u128(9).text();
        let Verdict::Refused(err) = verdict(c.observe(SqlObserved::Row(Some(nine)))) else {
            panic!("accepted")
        };
        assert_eq!(err.code(), Code::Stale);
        let mut c = SqlCheck::new(
            Dialect::Mysql,
            Placeholders::Question,
            "chats/42",
            Fence::from_u128(7),
            true,
        );
        c.start();
        assert_eq!(
            verdict(c.observe(SqlObserved::Changed(2))),
            Verdict::Accepted
        );
    }

    #[test]
    fn an_equal_fence_counted_unchanged_is_accepted() {
        let mut c = check(7, true);
        c.start();
        c.observe(SqlObserved::Changed(0));
        let equal = Fence::from_u128(7).text();
        assert_eq!(
            verdict(c.observe(SqlObserved::Row(Some(equal)))),
            Verdict::Accepted
        );
    }

    #[test]
    fn outside_a_transaction_or_a_bad_resource_ends_at_once() {
        let Verdict::Refused(err) = verdict(check(7, false).start()) else {
            panic!()
        };
        assert!(err.message().contains("outside a transaction"), "{err}");
        let mut bad = SqlCheck::new(
            Dialect::Sqlite,
            Placeholders::Question,
            "",
            Fence::from_u128(1),
            true,
        );
        let Verdict::Refused(err) = verdict(bad.start()) else {
            panic!()
        };
        assert_eq!(err.code(), Code::Invalid);
    }

    #[test]
    fn a_missing_table_is_the_guards_word_other_failures_the_drivers() {
        let mut c = check(7, true);
        c.start();
        let missing = DriverFailure::new("no such table: tinystore_fences");
        let Verdict::Refused(err) = verdict(c.observe(SqlObserved::Failed(missing))) else {
            panic!()
        };
        assert!(err.message().contains("ensure"), "{err}");
        let mut c = check(7, true);
        c.start();
        let busy = DriverFailure {
            sqlite_code: Some(5),
            ..DriverFailure::new("database is locked")
        };
        let Verdict::Driver(err) = verdict(c.observe(SqlObserved::Failed(busy))) else {
            panic!()
        };
        assert_eq!(err.code(), Code::Io);
    }

    #[test]
    fn an_observation_out_of_turn_is_internal() {
        let mut c = check(7, true);
        let Verdict::Refused(err) = verdict(c.observe(SqlObserved::Changed(1))) else {
            panic!()
        };
        assert_eq!(err.code(), Code::Internal);
    }
}
