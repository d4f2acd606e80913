//! The core's check-and-record ([`SqlCheck`]) for lib/guard.js, which runs
//! each statement it gives on the caller's own better-sqlite3 or pg handle
//! and reports what came of it.
//!
//! The check runs beside every guarded write, where a SQLite statement
//! costs about two microseconds and napi's classes, objects and arrays
//! about as much again per call; so these are plain functions over a
//! numbered check (`slot`, which lib/guard.js hands out: one per check
//! under way), whose steps cross as one string of fields separated by NUL
//! (U+0000), which no field but a driver's message can hold (the core
//! refuses a resource with a NUL before any statement; a fence is digits):
//!
//! - `execute` or `query`, the statement's number, then its parameters
//!   (the statement's text is [`guard_sql_text`] of its number, the same
//!   for the life of the process: the JS layer prepares it once);
//! - `done`, `accepted`;
//! - `done`, `refused` or `driver`, the error's code, for `stale` its
//!   resource, fence and largest (else three empty fields), then its
//!   message, which is the rest of the text.

use crate::error::to_napi;
use crate::fence::to_fence;
use crate::guard_step::NativeDriverFailure;
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use std::cell::RefCell;
use std::sync::Mutex;
use tinystore::guard::{Dialect, SqlCheck, SqlObserved, SqlStep, Verdict};
use tinystore::{Code, Error};

thread_local! {
    /// The checks under way on this thread, by slot.
    static CHECKS: RefCell<Vec<Option<SqlCheck>>> = const { RefCell::new(Vec::new()) };
}

/// The statements the checks gave, each once, by number.
static TEXTS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// The number of the statement `sql`, given it the first time.
fn number(sql: &'static str) -> usize {
    let mut texts = TEXTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(n) = texts.iter().position(|t| std::ptr::eq(*t, sql)) {
        return n;
    }
    texts.push(sql);
    texts.len() - 1
}

/// The text of the statement numbered `n` in a step.
#[napi]
pub fn guard_sql_text(n: u32) -> napi::Result<String> {
    numbered(n).map(str::to_string).ok_or_else(|| {
        to_napi(Error::new(
            Code::Internal,
            format!("no statement of the guard is numbered {n}"),
        ))
    })
}

fn numbered(n: u32) -> Option<&'static str> {
    let texts = TEXTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    texts.get(n as usize).copied()
}

/// Begins the check of `fence` for `resource` in `dialect` (`"sqlite"`:
/// `?` placeholders; `"postgres"`: `$1`) as `slot`; `in_transaction` is
/// whether the handle has a transaction open. Gives its first step.
#[napi]
pub fn guard_sql_start(
    slot: u32,
    dialect: String,
    resource: String,
    fence: BigInt,
    in_transaction: bool,
) -> napi::Result<String> {
    let dialect = Dialect::parse(&dialect).map_err(to_napi)?;
    let fence = to_fence(&fence)?;
    let mut check = SqlCheck::new(
        dialect,
        dialect.placeholders(),
        &resource,
        fence,
        in_transaction,
    );
    let step = check.start();
    if !matches!(step, SqlStep::Done(_)) {
        CHECKS.with(|checks| {
            let mut checks = checks.borrow_mut();
            let slot = slot as usize;
            if checks.len() <= slot {
                checks.resize_with(slot + 1, || None);
            }
            checks[slot] = Some(check);
        });
    }
    Ok(text(step))
}

/// The step after the last statement of `slot` changed `changed` rows.
#[napi]
pub fn guard_sql_changed(slot: u32, changed: u32) -> String {
    observe(slot, SqlObserved::Changed(changed.into()))
}

/// The step after the last query of `slot` read `row` (its first
/// column as text; absent: no row).
#[napi]
pub fn guard_sql_row(slot: u32, row: Option<String>) -> String {
    observe(slot, SqlObserved::Row(row))
}

/// The step after the last statement of `slot` failed in the driver.
#[napi]
pub fn guard_sql_failed(slot: u32, failure: NativeDriverFailure) -> String {
    observe(slot, SqlObserved::Failed(failure.into()))
}

fn observe(slot: u32, observed: SqlObserved) -> String {
    CHECKS.with(|checks| {
        let mut checks = checks.borrow_mut();
        let Some(check) = checks.get_mut(slot as usize).and_then(Option::as_mut) else {
            let err = Error::new(
                Code::Internal,
                format!("the guard's check {slot} is not under way"),
            );
            return text(SqlStep::Done(Verdict::Refused(err)));
        };
        let step = check.observe(observed);
        if matches!(step, SqlStep::Done(_)) {
            checks[slot as usize] = None;
        }
        text(step)
    })
}

/// A step as the text described above.
fn text(step: SqlStep) -> String {
    let mut out = String::with_capacity(64);
    match step {
        SqlStep::Execute { sql, params } => statement(&mut out, "execute", sql, &params),
        SqlStep::Query { sql, params } => statement(&mut out, "query", sql, &params),
        SqlStep::Done(Verdict::Accepted) => out.push_str("done\0accepted"),
        SqlStep::Done(Verdict::Refused(err)) => error(&mut out, "refused", &err),
        SqlStep::Done(Verdict::Driver(err)) => error(&mut out, "driver", &err),
    }
    out
}

fn statement(out: &mut String, kind: &str, sql: &'static str, params: &[String]) {
    out.push_str(kind);
    out.push('\0');
    out.push_str(&number(sql).to_string());
    for param in params {
        out.push('\0');
        out.push_str(param);
    }
}

fn error(out: &mut String, verdict: &str, err: &Error) {
    let (resource, fence, largest) = match err.stale_detail() {
        Some(s) => (
            s.resource.clone(),
            s.fence.to_string(),
            s.largest.to_string(),
        ),
        None => Default::default(),
    };
    let message = err.message();
    for field in [
        "done",
        verdict,
        err.code().as_str(),
        &resource,
        &fence,
        &largest,
        message,
    ] {
        out.push_str(field);
        out.push('\0');
    }
    out.pop();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_its_fields_joined_by_nul_and_the_message_is_last() {
        const INSERT: &str = "INSERT";
        let execute = SqlStep::Execute {
            sql: INSERT,
            params: vec!["chats/42".into(), "7".into()],
        };
        let n = number(INSERT);
        assert_eq!(text(execute), format!("execute\0{n}\0chats/42\07"));
        assert_eq!(numbered(n as u32), Some(INSERT));
        assert_eq!(text(SqlStep::Done(Verdict::Accepted)), "done\0accepted");
        let stale = Error::stale(tinystore::Stale {
            resource: "chats/42".into(),
            fence: 7,
            largest: u128::MAX,
        });
        let done = text(SqlStep::Done(Verdict::Refused(stale.clone())));
        let fields: Vec<&str> = done.splitn(7, '\0').collect();
        assert_eq!(
            fields[..6],
            [
                "done",
                "refused",
                "stale",
                "chats/42",
                "7",
                &u128::MAX.to_string()
            ]
        );
        assert_eq!(fields[6], stale.message());
        let driver = Error::new(Code::Io, "a\0b");
        assert!(text(SqlStep::Done(Verdict::Driver(driver))).ends_with("\0io\0\0\0\0a\0b"));
    }

    #[test]
    fn an_observation_of_a_check_not_under_way_is_internal() {
        assert!(guard_sql_changed(u32::MAX, 1).starts_with("done\0refused\0internal\0"));
    }
}
