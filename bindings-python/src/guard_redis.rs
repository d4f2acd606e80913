//! The Redis guard's machine for `tinystore.guard.redis`: the core's
//! `RedisCheck`. Its one step is `("eval", script, keys, args)` (tuples of
//! str), which the module runs through redis-py's script helper; the reply
//! comes back as `reply([str, ...])`, a failure as `failed(DriverFailure)`;
//! the end is the other guards' `("done", kind, error)`.

use crate::fence::fence_value;
use crate::guard_step::{done, failure, text};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PySequence, PyString, PyTuple};
use tinystore::guard::redis_check::{self, RedisObserved, RedisStep, RedisWrite};
use tinystore::Fence;

/// One guarded Redis write, driven by `tinystore.guard.redis`.
#[pyclass(module = "tinystore._native")]
pub(crate) struct RedisCheck(redis_check::RedisCheck);

fn made(
    key: &Bound<'_, PyAny>,
    fence: &Bound<'_, PyAny>,
    write: RedisWrite,
) -> PyResult<RedisCheck> {
    let key = text("a Redis key", key)?;
    let fence = Fence::from_u128(fence_value(fence)?);
    Ok(RedisCheck(redis_check::RedisCheck::new(&key, fence, write)))
}

#[pymethods]
impl RedisCheck {
    /// `SET key value`, guarded by `fence`.
    #[staticmethod]
    fn set(
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
    ) -> PyResult<RedisCheck> {
        let value = text("a Redis value", value)?;
        made(key, fence, RedisWrite::Set(value))
    }

    /// `DEL key`, guarded by `fence`.
    #[staticmethod]
    fn delete(key: &Bound<'_, PyAny>, fence: &Bound<'_, PyAny>) -> PyResult<RedisCheck> {
        made(key, fence, RedisWrite::Del)
    }

    /// `HSET key field value ...` of `mapping` (a dict of str), guarded by
    /// `fence`.
    #[staticmethod]
    fn hset(
        key: &Bound<'_, PyAny>,
        mapping: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
    ) -> PyResult<RedisCheck> {
        let Ok(mapping) = mapping.cast::<PyDict>() else {
            let kind = mapping.get_type().name()?;
            return Err(crate::error::invalid(format!(
                "a guarded HSET takes a dict of str to str, not {kind}"
            )));
        };
        let mut fields = Vec::with_capacity(mapping.len());
        for (field, value) in mapping.iter() {
            fields.push((
                text("a Redis hash field", &field)?,
                text("a Redis hash value", &value)?,
            ));
        }
        made(key, fence, RedisWrite::HSet(fields))
    }

    /// The caller's own Lua `body`, run behind the check with `KEYS` the
    /// key then `keys` and `ARGV` `args` (each a str, or an int as its
    /// decimal text), guarded by `fence`.
    #[staticmethod]
    fn script(
        key: &Bound<'_, PyAny>,
        body: &Bound<'_, PyAny>,
        keys: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
    ) -> PyResult<RedisCheck> {
        let body = text("a Redis script", body)?;
        let keys = texts("a Redis script's key", keys, false)?;
        let args = texts("a Redis script's argument", args, true)?;
        made(key, fence, RedisWrite::Script { body, keys, args })
    }

    /// The first step: `("eval", script, keys, args)`, or the end.
    fn start<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        match self.0.start() {
            RedisStep::Eval { script, keys, args } => (
                "eval",
                script,
                PyTuple::new(py, keys)?,
                PyTuple::new(py, args)?,
            )
                .into_pyobject(py),
            RedisStep::Done(verdict) => done(py, verdict),
        }
    }

    /// The end, after the script answered `reply`.
    fn reply<'py>(&mut self, py: Python<'py>, reply: Vec<String>) -> PyResult<Bound<'py, PyTuple>> {
        self.end(py, RedisObserved::Reply(reply))
    }

    /// The end, after the call failed in the client.
    fn failed<'py>(
        &mut self,
        py: Python<'py>,
        failure_: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let observed = RedisObserved::Failed(failure(failure_)?);
        self.end(py, observed)
    }
}

impl RedisCheck {
    fn end<'py>(
        &mut self,
        py: Python<'py>,
        observed: RedisObserved,
    ) -> PyResult<Bound<'py, PyTuple>> {
        match self.0.observe(observed) {
            RedisStep::Done(verdict) => done(py, verdict),
            RedisStep::Eval { .. } => Err(crate::error::to_py(tinystore::Error::new(
                tinystore::Code::Internal,
                "the Redis guard asked for a second script",
            ))),
        }
    }
}

/// The items of `items` (a list or tuple) as text: each a str, or with
/// `ints` an int as its decimal text.
fn texts(what: &str, items: &Bound<'_, PyAny>, ints: bool) -> PyResult<Vec<String>> {
    let Ok(items) = items.cast::<PySequence>() else {
        let kind = items.get_type().name()?;
        return Err(crate::error::invalid(format!(
            "{what}s must be a list or tuple, not {kind}"
        )));
    };
    if items.is_instance_of::<PyString>() {
        return Err(crate::error::invalid(format!(
            "{what}s must be a list or tuple, not a str"
        )));
    }
    let mut out = Vec::with_capacity(items.len()?);
    for item in items.try_iter()? {
        let item = item?;
        let is_int = item.is_instance_of::<PyInt>() && !item.is_instance_of::<PyBool>();
        out.push(if ints && is_int {
            item.str()?.to_string()
        } else {
            text(what, &item)?
        });
    }
    Ok(out)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RedisCheck>()
}
