//! The DynamoDB guard's machine for `tinystore.guard.dynamodb`: the core's
//! `DynamoCheck`. Its steps are `("transact", table, resource, fence,
//! digits)` (the register's put, which the module adds to the caller's
//! items) and `("read", table, resource)`; observations come back as
//! `written()`, `cancelled([code, ...], recorded, failure)`, `read(recorded)`
//! and `failed(failure)`; the end is the other guards' `("done", kind,
//! error)`.

use crate::fence::fence_value;
use crate::guard_step::{done, failure, text};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tinystore::guard::dynamo_check::{self, DynamoObserved, DynamoStep};
use tinystore::Fence;

/// One guarded DynamoDB transaction, driven by `tinystore.guard.dynamodb`.
#[pyclass(module = "tinystore._native")]
pub(crate) struct DynamoCheck(dynamo_check::DynamoCheck);

#[pymethods]
impl DynamoCheck {
    /// A guard of `fence` for `resource` in register table `table`, with
    /// `items` items of the caller's.
    #[new]
    fn new(
        table: &Bound<'_, PyAny>,
        resource: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
        items: usize,
    ) -> PyResult<DynamoCheck> {
        let table = text("a DynamoDB register table", table)?;
        let resource = text("a resource", resource)?;
        let fence = Fence::from_u128(fence_value(fence)?);
        Ok(DynamoCheck(dynamo_check::DynamoCheck::new(
            &table, &resource, fence, items,
        )))
    }

    /// The first step, or the end.
    fn start<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.start();
        step_of(py, step)
    }

    /// Says that an attempt of the transaction got `status` as its answer
    /// (None: no answer came); before the last attempt's outcome is
    /// observed. Core decides whether it may have been written.
    #[pyo3(signature = (status))]
    fn attempted(&mut self, status: Option<u16>) {
        self.0.attempted(status);
    }

    /// After the transaction was written.
    fn written<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(DynamoObserved::Written);
        step_of(py, step)
    }

    /// After the transaction was cancelled: each item's reason code, the
    /// register item's fence as returned (or None), the exception.
    fn cancelled<'py>(
        &mut self,
        py: Python<'py>,
        codes: Vec<String>,
        recorded: Option<String>,
        failure_: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let failure = failure(failure_)?;
        let step = self.0.observe(DynamoObserved::Cancelled {
            codes,
            recorded,
            failure,
        });
        step_of(py, step)
    }

    /// After the register item was read: its fence, or None.
    fn read<'py>(
        &mut self,
        py: Python<'py>,
        recorded: Option<String>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(DynamoObserved::Read(recorded));
        step_of(py, step)
    }

    /// After a call failed otherwise.
    fn failed<'py>(
        &mut self,
        py: Python<'py>,
        failure_: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(DynamoObserved::Failed(failure(failure_)?));
        step_of(py, step)
    }
}

fn step_of(py: Python<'_>, step: DynamoStep) -> PyResult<Bound<'_, PyTuple>> {
    match step {
        DynamoStep::Transact(put) => {
            ("transact", put.table, put.resource, put.fence, put.digits).into_pyobject(py)
        }
        DynamoStep::Read { table, resource } => ("read", table, resource).into_pyobject(py),
        DynamoStep::Done(verdict) => done(py, verdict),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DynamoCheck>()
}
