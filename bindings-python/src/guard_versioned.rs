//! The guard's machine on stores that compare versions, for
//! `tinystore.guard.gcs` and `tinystore.guard.azure`: the core's
//! `VersionedCheck`. Its steps are `("read",)` and `("put", version,
//! metadata_key, fence)` (version None: the object must not exist yet);
//! observations come back as `found(version, fence)`, `absent()`,
//! `written()`, `condition_failed()` and `failed(failure)`; the end is the
//! other guards' `("done", kind, error)`.

use crate::fence::fence_value;
use crate::guard_step::{done, failure, text};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tinystore::guard::versioned_check::{
    self, Condition, VersionedObserved, VersionedStep, VersionedStore,
};
use tinystore::Fence;

/// One guarded put, driven by `tinystore.guard.gcs` or `.azure`.
#[pyclass(module = "tinystore._native")]
pub(crate) struct VersionedCheck(versioned_check::VersionedCheck);

#[pymethods]
impl VersionedCheck {
    /// A guarded put of `fence` to object `resource` on `store` (`"gcs"`
    /// or `"azure"`).
    #[new]
    fn new(
        store: &str,
        resource: &Bound<'_, PyAny>,
        fence: &Bound<'_, PyAny>,
    ) -> PyResult<VersionedCheck> {
        let on = store_named(store)?;
        let resource = text("a resource", resource)?;
        let fence = Fence::from_u128(fence_value(fence)?);
        Ok(VersionedCheck(versioned_check::VersionedCheck::new(
            on, &resource, fence,
        )))
    }

    /// The first step, or the end.
    fn start<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.start();
        step_of(py, step)
    }

    /// After a read found the object at `version`, with its fence metadata
    /// (or None).
    fn found<'py>(
        &mut self,
        py: Python<'py>,
        version: String,
        fence: Option<String>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(VersionedObserved::Found { version, fence });
        step_of(py, step)
    }

    /// After a read found no object.
    fn absent<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(VersionedObserved::Absent);
        step_of(py, step)
    }

    /// Says that an attempt of the put last given got `status` as its
    /// answer (None: no answer came) and the client made it again; before
    /// the put's outcome is observed. Core decides whether it may have
    /// been written.
    #[pyo3(signature = (status))]
    fn attempted(&mut self, status: Option<u16>) {
        self.0.attempted(status);
    }

    /// After the put landed.
    fn written<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(VersionedObserved::Written);
        step_of(py, step)
    }

    /// After the put's condition failed.
    fn condition_failed<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let step = self.0.observe(VersionedObserved::ConditionFailed);
        step_of(py, step)
    }

    /// After a call failed otherwise.
    fn failed<'py>(
        &mut self,
        py: Python<'py>,
        failure_: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let step = self
            .0
            .observe(VersionedObserved::Failed(failure(failure_)?));
        step_of(py, step)
    }
}

/// The store a name stands for.
fn store_named(name: &str) -> PyResult<VersionedStore> {
    match name {
        "gcs" => Ok(VersionedStore::Gcs),
        "azure" => Ok(VersionedStore::Azure),
        other => Err(crate::error::invalid(format!(
            "unknown versioned store {other:?}: \"gcs\" or \"azure\""
        ))),
    }
}

/// Checks the caller's metadata names for a guarded put on `store`.
#[pyfunction]
fn versioned_check_metadata(store: &str, resource: &str, keys: Vec<String>) -> PyResult<()> {
    let on = store_named(store)?;
    on.check_metadata(resource, keys.iter().map(String::as_str))
        .map_err(crate::error::to_py)
}

fn step_of(py: Python<'_>, step: VersionedStep) -> PyResult<Bound<'_, PyTuple>> {
    match step {
        VersionedStep::Read => ("read",).into_pyobject(py),
        VersionedStep::Put {
            condition,
            metadata_key,
            fence,
        } => {
            let version = match condition {
                Condition::Absent => None,
                Condition::Version(version) => Some(version),
            };
            ("put", version, metadata_key, fence).into_pyobject(py)
        }
        VersionedStep::Done(verdict) => done(py, verdict),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<VersionedCheck>()?;
    m.add_function(wrap_pyfunction!(versioned_check_metadata, m)?)
}
