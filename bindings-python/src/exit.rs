//! The interpreter's exit, as the runtime's threads see it.
//!
//! The runtime's threads call into Python (to settle an awaitable on its
//! event loop, to report a lost lease). A thread that takes or retakes the
//! GIL once the interpreter finalizes is ended by CPython from inside its
//! Rust frames, which aborts the process ("PyGILState_Release: thread state
//! ... must be current"), so they attach only through [`attach`]: it runs
//! nothing once the interpreter exits. An `atexit` hook ([`close`]) shuts
//! that door and waits, with the GIL released, until no runtime thread is
//! inside Python any more; `atexit` hooks run before the interpreter starts
//! finalizing, so no runtime thread ever touches a finalizing interpreter.
//! The work they would have done has nobody left to receive it.

use pyo3::prelude::*;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Whether the door is shut, and how many runtime threads are inside Python.
struct Door {
    closed: bool,
    inside: usize,
}

static DOOR: Mutex<Door> = Mutex::new(Door {
    closed: false,
    inside: 0,
});
static LEFT: Condvar = Condvar::new();

fn door() -> MutexGuard<'static, Door> {
    DOOR.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `f` attached to Python from a runtime thread; `None`, with `f`
/// dropped unrun, once the interpreter is exiting.
pub(crate) fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    {
        let mut door = door();
        if door.closed {
            return None;
        }
        door.inside += 1;
    }
    let _leave = Leave;
    Python::try_attach(f)
}

/// Counts a thread out of Python, also when `f` panicked.
struct Leave;

impl Drop for Leave {
    fn drop(&mut self) {
        let mut door = door();
        door.inside -= 1;
        if door.inside == 0 {
            LEFT.notify_all();
        }
    }
}

/// The `atexit` hook: no runtime thread enters Python from now on; returns
/// once those inside have left.
#[pyfunction]
fn close(py: Python<'_>) {
    py.detach(|| {
        let mut door = door();
        door.closed = true;
        while door.inside > 0 {
            door = LEFT.wait(door).unwrap_or_else(|p| p.into_inner());
        }
    });
}

/// Registers [`close`] with `atexit`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let hook = wrap_pyfunction!(close, m)?;
    m.py()
        .import("atexit")?
        .call_method1("register", (hook,))
        .map(drop)
}
