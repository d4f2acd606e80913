//! `Election`, `Leadership` and `Observer`: the core's elections, with
//! async (awaitable) and sync forms as locks have. A leader crosses to
//! Python as the tuple `(value, fence)`; the package makes it a `Leader`.
//! Everything else (waiting in the queue, the term, the lost signal, what a
//! `lead` adds to its body's result) is the core's.

use crate::acquiring::{awaitable, coroutine};
use crate::error::to_py;
use crate::exit;
use crate::following::following_class;
use crate::lease::{holding_class, py_bool};
use crate::runtime::{block_on, runtime};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};
use tinystore::binding::EndHold;

/// A leader as Python gets it: `(value, fence)`.
type PyLeader = (String, u128);

fn py_leader(leader: Option<tinystore::Leader>) -> Option<PyLeader> {
    leader.map(|l| (l.value, l.fence.get()))
}

/// The election called `name` of a store.
#[pyclass(module = "tinystore._native", frozen)]
pub(crate) struct Election {
    inner: tinystore::Election,
}

impl Election {
    pub(crate) fn new(inner: tinystore::Election) -> Election {
        Election { inner }
    }
}

#[pymethods]
impl Election {
    /// The election's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Waits first come first served until this caller leads with `value`
    /// (awaitable); cancelling it gives the campaign up and leaks nothing.
    #[pyo3(signature = (value, **options))]
    fn campaign<'py>(
        &self,
        py: Python<'py>,
        value: String,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (election, over) = (self.inner.clone(), crate::args::options(options)?);
        awaitable(py, async move {
            election
                .campaign_with(&value, over)
                .await
                .map(Leadership::new)
        })
    }

    /// `campaign`, waiting with the GIL released.
    #[pyo3(signature = (value, **options))]
    fn campaign_sync(
        &self,
        py: Python<'_>,
        value: String,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Leadership> {
        let over = crate::args::options(options)?;
        let held = block_on(py, self.inner.campaign_with(&value, over)).map_err(to_py)?;
        Ok(Leadership::new(held))
    }

    /// The leader now as `(value, fence)`, or None (awaitable).
    fn leader<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let election = self.inner.clone();
        awaitable(py, async move { election.leader().await.map(py_leader) })
    }

    /// `leader`, waiting with the GIL released.
    fn leader_sync(&self, py: Python<'_>) -> PyResult<Option<PyLeader>> {
        block_on(py, self.inner.leader())
            .map(py_leader)
            .map_err(to_py)
    }

    /// Starts observing now (an embedded store's observer is subscribed
    /// on return); see the core's `Election::observing`.
    fn observe(&self) -> Observer {
        Observer::start(|| tinystore::binding::StartCampaign::observing(&self.inner))
    }
}

holding_class!(
    Leadership,
    tinystore::Leadership,
    "Leading an election: a lease with the leader's value; its fence is the term. Dropping it resigns.",
    resign / resign_sync,
    end_hold,
    {
        /// The value this leader campaigned with.
        #[getter]
        fn value(&self) -> &str {
            self.inner.value()
        }

        /// The term, an int larger than every earlier leader's.
        #[getter]
        fn fence(&self) -> u128 {
            self.inner.fence().get()
        }

        fn __repr__(&self) -> String {
            format!(
                "Leadership(name={:?}, value={:?}, fence={}, held={})",
                self.inner.name(),
                self.inner.value(),
                self.inner.fence(),
                py_bool(self.inner.is_held())
            )
        }
    }
);

following_class!(
    Observer,
    Option<tinystore::Leader>,
    Option<PyLeader>,
    py_leader,
    "Every change of an election's leader: `next` gives `(True, leader)`, `leader` a `(value, fence)` or None, and `(False, None)` once it ended."
);
