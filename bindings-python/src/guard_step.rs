//! The guards' state machines for `tinystore.guard` and
//! `tinystore.guard.s3`: the core's `SqlCheck`, `ObjectWrite` and
//! `ObjectRead`, whose steps cross to Python as small tuples, and
//! `DriverFailure`, a driver's error described by what it reports and
//! classified by core. The Python modules run each step on the caller's own
//! handle or client and hand back what it observed; every decision, retry
//! and message is the core's.
//!
//! Steps: `("execute", sql, params)`, `("query", sql, params)` (params a
//! tuple of str; a check's accepted end is None, and its observations are
//! the methods `changed`, `row` and `failed`), `("list", prefix)`, `("put", key, metadata)` (metadata a
//! dict), `("delete", key)`, `("get", key)`, and `("done", kind, error)`:
//! `kind` is `"accepted"` (`error` None), `"refused"` (the guard's own
//! error, to raise) or `"driver"` (the driver's error, which Python raises
//! as the driver gave it; `error` is core's description of it).
//!
//! Object observations: `("listed", [keys])`, `("written",)`, `("deleted",)`,
//! `("got", {metadata})`, `("failed", DriverFailure)`.

use crate::error::{invalid, to_py};
use crate::fence::fence_value;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use std::sync::Mutex;
use tinystore::guard::{
    self, Dialect, ObjectObserved, ObjectStep, Placeholders, SqlObserved, SqlStep, Verdict,
};
use tinystore::Fence;

/// A driver's or an SDK's error, described by what it reports; core
/// classifies it (`kind`).
#[pyclass(module = "tinystore._native", frozen, get_all)]
#[derive(Clone)]
pub(crate) struct DriverFailure {
    /// The SQLSTATE (PostgreSQL), such as `"40001"`.
    sqlstate: Option<String>,
    /// SQLite's result code, primary or extended.
    sqlite_code: Option<i32>,
    /// The HTTP status of an object store's answer.
    http_status: Option<u16>,
    /// A named code: a service's, a driver's (`"SQLITE_BUSY"`), a
    /// socket's, or `"connection"` for a connection lost without a code.
    error_code: Option<String>,
    /// The driver's own text.
    message: String,
}

impl DriverFailure {
    fn core(&self) -> guard::DriverFailure {
        guard::DriverFailure {
            sqlstate: self.sqlstate.clone(),
            sqlite_code: self.sqlite_code,
            http_status: self.http_status,
            error_code: self.error_code.clone(),
            message: self.message.clone(),
        }
    }
}

#[pymethods]
impl DriverFailure {
    #[new]
    #[pyo3(signature = (message, *, sqlstate=None, sqlite_code=None, http_status=None, error_code=None))]
    fn new(
        message: String,
        sqlstate: Option<String>,
        sqlite_code: Option<i32>,
        http_status: Option<u16>,
        error_code: Option<String>,
    ) -> DriverFailure {
        DriverFailure {
            sqlstate,
            sqlite_code,
            http_status,
            error_code,
            message,
        }
    }

    /// Core's class of the failure: `missing_table`, `serialization`,
    /// `permission`, `unavailable` or `other`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.core().class().name()
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.core())
    }
}

/// A text argument: a `str` of valid UTF-8 (no lone surrogate), else
/// `invalid` naming `what`.
pub(crate) fn text(what: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let Ok(text) = value.cast::<PyString>() else {
        let kind = value.get_type().name()?;
        return Err(invalid(format!("{what} must be a str, not {kind}")));
    };
    let text = text.to_str().map_err(|_| {
        invalid(format!(
            "{what} must be valid UTF-8 text; this str has a lone surrogate"
        ))
    })?;
    Ok(text.to_string())
}

pub(crate) fn done(py: Python<'_>, verdict: Verdict) -> PyResult<Bound<'_, PyTuple>> {
    let (kind, err) = match verdict {
        Verdict::Accepted => return ("done", "accepted", py.None()).into_pyobject(py),
        Verdict::Refused(err) => ("refused", err),
        Verdict::Driver(err) => ("driver", err),
    };
    ("done", kind, to_py(err).into_value(py)).into_pyobject(py)
}

fn tag<'py>(observed: &Bound<'py, PyTuple>) -> PyResult<(String, Option<Bound<'py, PyAny>>)> {
    let tag: String = observed.get_item(0)?.extract()?;
    let value = observed.get_item(1).ok();
    Ok((tag, value))
}

fn value<'py>(tag: &str, value: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    value.ok_or_else(|| invalid(format!("the observation {tag:?} needs its value")))
}

pub(crate) fn failure(value: &Bound<'_, PyAny>) -> PyResult<guard::DriverFailure> {
    Ok(value.cast::<DriverFailure>()?.get().core())
}

/// One SQL check-and-record, driven by `tinystore.guard`.
#[pyclass(module = "tinystore._native")]
pub(crate) struct SqlCheck(guard::SqlCheck);

#[pymethods]
impl SqlCheck {
    /// A check of `fence` for `resource` in `dialect` (`"sqlite"`,
    /// `"postgres"`) with `placeholders` (`"?"`, `"$1"`, `"%s"`);
    /// `in_transaction` is whether the handle has a transaction open (or
    /// opens one before the statement). A resource that is not a str of
    /// UTF-8, or a fence that is not an int from 0 to 2^128-1, is `Invalid`.
    #[new]
    fn new(
        dialect: &str,
        placeholders: &str,
        resource: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
        in_transaction: bool,
    ) -> PyResult<SqlCheck> {
        let dialect = Dialect::parse(dialect).map_err(to_py)?;
        let placeholders = Placeholders::parse(placeholders).map_err(to_py)?;
        let resource = text("a guard resource", resource)?;
        let fence = Fence::from_u128(fence_value(fence)?);
        Ok(SqlCheck(guard::SqlCheck::new(
            dialect,
            placeholders,
            &resource,
            fence,
            in_transaction,
        )))
    }

    /// The first step, or None when the check is accepted.
    fn start<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        sql_step(py, self.0.start())
    }

    /// The step after an `execute` step changed `n` rows.
    fn changed<'py>(&mut self, py: Python<'py>, n: u64) -> PyResult<Option<Bound<'py, PyTuple>>> {
        sql_step(py, self.0.observe(SqlObserved::Changed(n)))
    }

    /// The step after a `query` step read `text` (None: no row).
    fn row<'py>(
        &mut self,
        py: Python<'py>,
        text: Option<String>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        sql_step(py, self.0.observe(SqlObserved::Row(text)))
    }

    /// The step after a step failed in the driver, as `failure` describes.
    fn failed<'py>(
        &mut self,
        py: Python<'py>,
        failure: &Bound<'py, DriverFailure>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let failure = failure.get().core();
        sql_step(py, self.0.observe(SqlObserved::Failed(failure)))
    }
}

/// A check's step as Python sees it: None for accepted (the common end,
/// made cheap), `("execute" | "query", sql, params)`, or `("done", kind,
/// error)`. The statement's text is made a Python str once per statement.
fn sql_step(py: Python<'_>, step: SqlStep) -> PyResult<Option<Bound<'_, PyTuple>>> {
    let (tag, sql, params) = match step {
        SqlStep::Done(Verdict::Accepted) => return Ok(None),
        SqlStep::Done(verdict) => return done(py, verdict).map(Some),
        SqlStep::Execute { sql, params } => (intern!(py, "execute"), sql, params),
        SqlStep::Query { sql, params } => (intern!(py, "query"), sql, params),
    };
    let params = PyTuple::new(py, params)?;
    Ok(Some((tag, statement(py, sql), params).into_pyobject(py)?))
}

/// The Python str of one of core's statements, made once: core's
/// statements are `'static` and few.
fn statement<'py>(py: Python<'py>, sql: &'static str) -> Bound<'py, PyString> {
    static MADE: Mutex<Vec<(usize, Py<PyString>)>> = Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    let address = sql.as_ptr() as usize;
    if let Some((_, text)) = made.iter().find(|(a, _)| *a == address) {
        return text.bind(py).clone();
    }
    let text = PyString::new(py, sql);
    made.push((address, text.clone().unbind()));
    text
}

fn object_observed(observed: &Bound<'_, PyTuple>) -> PyResult<ObjectObserved> {
    let (tag, v) = tag(observed)?;
    Ok(match tag.as_str() {
        "listed" => ObjectObserved::Listed(value(&tag, v)?.extract()?),
        "written" => ObjectObserved::Written,
        "deleted" => ObjectObserved::Deleted,
        "got" => {
            let metadata = value(&tag, v)?;
            let metadata = metadata.cast::<PyDict>()?;
            ObjectObserved::Got {
                metadata: metadata
                    .iter()
                    .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
                    .collect::<PyResult<_>>()?,
            }
        }
        "failed" => ObjectObserved::Failed(failure(&value(&tag, v)?)?),
        _ => return Err(invalid(format!("{tag:?} is no object observation"))),
    })
}

fn object_step(py: Python<'_>, step: ObjectStep) -> PyResult<Bound<'_, PyTuple>> {
    match step {
        ObjectStep::List { prefix } => ("list", prefix).into_pyobject(py),
        ObjectStep::Put { key, metadata } => {
            let dict = PyDict::new(py);
            for (k, v) in metadata {
                dict.set_item(k, v)?;
            }
            ("put", key, dict).into_pyobject(py)
        }
        ObjectStep::Delete { key } => ("delete", key).into_pyobject(py),
        ObjectStep::Get { key } => ("get", key).into_pyobject(py),
        ObjectStep::Done(verdict) => done(py, verdict),
    }
}

/// A bucket and key argument, each a str of UTF-8.
fn bucket_key(bucket: &Bound<'_, PyAny>, key: &Bound<'_, PyAny>) -> PyResult<(String, String)> {
    Ok((
        text("a guarded object's bucket", bucket)?,
        text("a guarded object's key", key)?,
    ))
}

/// One guarded object write (a put or a delete's tombstone), driven by
/// `tinystore.guard.s3`.
#[pyclass(module = "tinystore._native")]
pub(crate) struct ObjectWrite(guard::ObjectWrite);

#[pymethods]
impl ObjectWrite {
    /// A guarded put of `fence` to `bucket`/`key` with the caller's own
    /// `metadata` (pairs of str) beside the fence.
    #[staticmethod]
    fn put(
        bucket: &Bound<'_, PyAny>,
        key: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
        metadata: Vec<(String, String)>,
    ) -> PyResult<ObjectWrite> {
        let (bucket, key) = bucket_key(bucket, key)?;
        let fence = Fence::from_u128(fence_value(fence)?);
        Ok(ObjectWrite(guard::ObjectWrite::put(
            &bucket, &key, fence, metadata,
        )))
    }

    /// A guarded delete of `bucket`/`key` with `fence`: a tombstone.
    #[staticmethod]
    fn delete(
        bucket: &Bound<'_, PyAny>,
        key: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
    ) -> PyResult<ObjectWrite> {
        let (bucket, key) = bucket_key(bucket, key)?;
        let fence = Fence::from_u128(fence_value(fence)?);
        Ok(ObjectWrite(guard::ObjectWrite::delete(
            &bucket, &key, fence,
        )))
    }

    /// Whether the put is a tombstone (its body is empty).
    #[getter]
    fn is_tombstone(&self) -> bool {
        self.0.is_tombstone()
    }

    /// The first step.
    fn start<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        object_step(py, self.0.start())
    }

    /// The step after `observed`: `("listed", keys)`, `("written",)`,
    /// `("deleted",)` or `("failed", DriverFailure)`.
    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        observed: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let observed = object_observed(observed)?;
        object_step(py, self.0.observe(observed))
    }
}

/// One guarded object read, driven by `tinystore.guard.s3.get`.
#[pyclass(module = "tinystore._native")]
pub(crate) struct ObjectRead(guard::ObjectRead);

#[pymethods]
impl ObjectRead {
    #[new]
    fn new(bucket: &Bound<'_, PyAny>, key: &Bound<'_, PyAny>) -> PyResult<ObjectRead> {
        let (bucket, key) = bucket_key(bucket, key)?;
        Ok(ObjectRead(guard::ObjectRead::new(&bucket, &key)))
    }

    /// After `("done", "accepted", None)`: the fence of the object read,
    /// or None when there is none (never written, or a tombstone).
    #[getter]
    fn found(&self) -> Option<u128> {
        self.0.found().map(Fence::get)
    }

    /// The first step.
    fn start<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        object_step(py, self.0.start())
    }

    /// The step after `observed`: `("listed", keys)`, `("got", metadata)`
    /// or `("failed", DriverFailure)` (a 404 is one).
    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        observed: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let observed = object_observed(observed)?;
        object_step(py, self.0.observe(observed))
    }
}

/// The statement that makes the register table if it is missing, for
/// `dialect` (`"sqlite"`, `"postgres"`).
#[pyfunction]
pub(crate) fn guard_migration(dialect: &str) -> PyResult<String> {
    let dialect = Dialect::parse(dialect).map_err(to_py)?;
    Ok(guard::sql::Statements::of(dialect).migration)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DriverFailure>()?;
    m.add_class::<SqlCheck>()?;
    m.add_class::<ObjectWrite>()?;
    m.add_class::<ObjectRead>()?;
    m.add_function(wrap_pyfunction!(guard_migration, m)?)?;
    Ok(())
}
