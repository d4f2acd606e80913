//! Futures finished on the JS thread. A call whose future is not ready at
//! its first poll (a connected store's reply comes later) goes on here
//! instead of in a tokio task with a threadsafe function of its own: the
//! future stays on the JS thread and its waker, run on whichever thread
//! has news (the connection's reader), queues its slot and, when the queue
//! was empty, pings the JS thread through one threadsafe function per JS
//! thread. The JS thread then polls every queued future, inside the
//! runtime, and settles the promises of those that are done. So a call
//! makes a promise and nothing else: no thread is woken to poll it, and
//! the replies that arrive together settle in one turn of the event loop.
//!
//! The event loop is kept alive while a future is pending here, as a
//! tokio task with its threadsafe function kept it alive, and not longer.

use napi::bindgen_prelude::{within_runtime_if_available, PromiseRaw, ToNapiValue};
use napi::{check_status, sys, Env, JsError};
use std::cell::RefCell;
use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::ptr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use tinystore_wakeup::{Completions, Pushed};

/// What a finished future leaves: the JS value to settle its promise with.
type Settle = Box<dyn FnOnce(sys::napi_env) -> napi::Result<sys::napi_value>>;

/// A future under way and the promise it settles.
struct Task {
    future: Pin<Box<dyn Future<Output = Settle>>>,
    deferred: sys::napi_deferred,
    /// Its slot's, made once for the slot and kept for its next tasks.
    waker: Waker,
}

/// The JS thread's futures, by slot.
struct Local {
    shared: Arc<Shared>,
    tsfn: sys::napi_threadsafe_function,
    tasks: Vec<Option<Task>>,
    wakers: Vec<Waker>,
    free: Vec<usize>,
    live: usize,
}

/// What wakers on any thread share with the JS thread: the slots woken
/// since the JS thread last looked (the completion queue every binding
/// uses, closed when the environment is torn down), and the ping to it,
/// null once the environment is torn down.
struct Shared {
    slots: Completions<usize>,
    ping: Mutex<Ping>,
}

/// The threadsafe function that pings the JS thread.
struct Ping(sys::napi_threadsafe_function);

// SAFETY: a threadsafe function may be called from any thread; it is only
// called under the mutex, and nulled under it before Node frees it.
unsafe impl Send for Ping {}

impl Shared {
    fn ping(&self) -> std::sync::MutexGuard<'_, Ping> {
        self.ping.lock().unwrap_or_else(|e| e.into_inner())
    }
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

/// The waker of one slot.
struct SlotWaker {
    slot: usize,
    shared: Arc<Shared>,
}

impl Wake for SlotWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !matches!(self.shared.slots.push(self.slot), Pushed::First) {
            return;
        }
        let ping = self.shared.ping();
        if ping.0.is_null() {
            return;
        }
        // SAFETY: not null, so its environment is alive (see `teardown`).
        unsafe {
            sys::napi_call_threadsafe_function(
                ping.0,
                ptr::null_mut(),
                sys::ThreadsafeFunctionCallMode::nonblocking,
            );
        }
    }
}

/// A promise that `future` settles, the future polled on this (the JS)
/// thread whenever it is woken. Poll it once first yourself if it may be
/// ready at once (see [`crate::now`]).
pub fn later<'env, T, F>(env: &'env Env, future: F) -> napi::Result<PromiseRaw<'env, T>>
where
    T: 'static + ToNapiValue,
    F: 'static + Future<Output = napi::Result<T>>,
{
    let raw = env.raw();
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    // SAFETY: `raw` is the live env of this call on the JS thread; the two
    // out-pointers are live locals.
    check_status!(unsafe { sys::napi_create_promise(raw, &mut deferred, &mut promise) })?;
    let future = async move {
        let out = future.await;
        Box::new(move |env| match out {
            // SAFETY: called on the JS thread with its live env.
            Ok(value) => unsafe { T::to_napi_value(env, value) },
            Err(err) => Err(err),
        }) as Settle
    };
    let slot = LOCAL.with(|local| -> napi::Result<usize> {
        let mut local = local.borrow_mut();
        if local.is_none() {
            *local = Some(Local::new(raw)?);
        }
        let local = local.as_mut().expect("made above");
        let slot = local.free.pop().unwrap_or_else(|| {
            let slot = local.tasks.len();
            local.tasks.push(None);
            local.wakers.push(Waker::from(Arc::new(SlotWaker {
                slot,
                shared: local.shared.clone(),
            })));
            slot
        });
        local.tasks[slot] = Some(Task {
            future: Box::pin(future),
            deferred,
            waker: local.wakers[slot].clone(),
        });
        local.live += 1;
        if local.live == 1 {
            // SAFETY: on the JS thread, with its live env; `local.tsfn` was
            // made for this env and is released only by its teardown,
            // which also empties `LOCAL`.
            check_status!(unsafe { sys::napi_ref_threadsafe_function(raw, local.tsfn) })?;
        }
        Ok(slot)
    })?;
    // Polled now with its waker: an earlier poll without one (see
    // `crate::now`) registered none.
    drain_slots(raw, [slot]);
    Ok(PromiseRaw::new(raw, promise))
}

impl Local {
    /// The JS thread's queue, with its threadsafe function (unreferenced
    /// until a future is pending) and the hook that disarms it.
    fn new(env: sys::napi_env) -> napi::Result<Local> {
        let shared = Arc::new(Shared {
            slots: Completions::new(),
            ping: Mutex::new(Ping(ptr::null_mut())),
        });
        let mut name = ptr::null_mut();
        let label = "tinystore";
        // SAFETY: `env` is live (we are on its JS thread); `label` is
        // `label.len()` readable bytes of UTF-8; `name` is a live local.
        check_status!(unsafe {
            sys::napi_create_string_utf8(
                env,
                label.as_ptr().cast(),
                label.len() as isize,
                &mut name,
            )
        })?;
        let mut tsfn = ptr::null_mut();
        // SAFETY: `env` is live; `name` is a JS string of it; no JS
        // function, context or finalizer is given (all null), `on_ping`
        // matches the call_js callback's signature; `tsfn` is a live local.
        check_status!(unsafe {
            sys::napi_create_threadsafe_function(
                env,
                ptr::null_mut(),
                ptr::null_mut(),
                name,
                0,
                1,
                ptr::null_mut(),
                None,
                ptr::null_mut(),
                Some(on_ping),
                &mut tsfn,
            )
        })?;
        // SAFETY: `tsfn` was made just now for this live env.
        check_status!(unsafe { sys::napi_unref_threadsafe_function(env, tsfn) })?;
        shared.ping().0 = tsfn;
        let hook = Arc::into_raw(shared.clone()) as *mut c_void;
        // SAFETY: `env` is live; `teardown` takes back the `Arc` that
        // `hook` leaks here, once, when the env is torn down.
        check_status!(unsafe { sys::napi_add_env_cleanup_hook(env, Some(teardown), hook) })?;
        Ok(Local {
            shared,
            tsfn,
            tasks: Vec::new(),
            wakers: Vec::new(),
            free: Vec::new(),
            live: 0,
        })
    }
}

/// The environment is going: no waker calls the threadsafe function any
/// more (Node frees it next), and the pending futures are dropped.
///
/// # Safety
/// Called by Node once, on the JS thread, with the `data` that
/// [`Local::new`] registered: a pointer from `Arc::into_raw` of a
/// `Shared`, whose count it takes back.
unsafe extern "C" fn teardown(data: *mut c_void) {
    // SAFETY: `data` is the `Arc<Shared>` leaked by `Local::new` for this
    // hook, taken back once (Node runs a cleanup hook once).
    let shared = unsafe { Arc::from_raw(data as *const Shared) };
    shared.slots.close();
    shared.ping().0 = ptr::null_mut();
    let gone = LOCAL.with(|local| local.borrow_mut().take());
    drop(gone);
}

/// The ping, on the JS thread: polls the woken futures.
///
/// # Safety
/// Called by Node as the threadsafe function's call_js callback, on the JS
/// thread, with its env, or with a null env while the function is being
/// torn down (then it does nothing). It reads no pointer but `env`.
unsafe extern "C" fn on_ping(
    env: sys::napi_env,
    _js_callback: sys::napi_value,
    _context: *mut c_void,
    _data: *mut c_void,
) {
    if env.is_null() {
        return;
    }
    let slots = LOCAL.with(|local| {
        let local = local.borrow();
        local.as_ref().map(|local| local.shared.slots.take())
    });
    if let Some(slots) = slots {
        drain_slots(env, slots);
    }
}

/// Polls the futures of `slots` once each, settling those that finish.
fn drain_slots(env: sys::napi_env, slots: impl IntoIterator<Item = usize>) {
    for slot in slots {
        let Some(mut task) = LOCAL.with(|local| {
            local
                .borrow_mut()
                .as_mut()
                .and_then(|local| local.tasks.get_mut(slot).and_then(Option::take))
        }) else {
            continue;
        };
        let mut cx = Context::from_waker(&task.waker);
        match within_runtime_if_available(|| task.future.as_mut().poll(&mut cx)) {
            Poll::Pending => LOCAL.with(|local| {
                if let Some(local) = local.borrow_mut().as_mut() {
                    local.tasks[slot] = Some(task);
                }
            }),
            Poll::Ready(settle) => {
                settle_promise(env, task.deferred, settle);
                LOCAL.with(|local| {
                    if let Some(local) = local.borrow_mut().as_mut() {
                        local.free.push(slot);
                        local.live -= 1;
                        if local.live == 0 {
                            // SAFETY: on the JS thread with its live env;
                            // `local.tsfn` was made for it and outlives
                            // `LOCAL`'s contents (see `teardown`).
                            unsafe { sys::napi_unref_threadsafe_function(env, local.tsfn) };
                        }
                    }
                });
            }
        }
    }
}

/// Resolves or rejects `deferred` with what its future left.
fn settle_promise(env: sys::napi_env, deferred: sys::napi_deferred, settle: Settle) {
    match settle(env) {
        // SAFETY: on the JS thread with its live env; `deferred` was made
        // by `napi_create_promise` in `later` and is settled once, here
        // (its task left the table before).
        Ok(value) => unsafe {
            sys::napi_resolve_deferred(env, deferred, value);
        },
        // SAFETY: as above.
        Err(err) => unsafe {
            let value = JsError::from(err).into_value(env);
            sys::napi_reject_deferred(env, deferred, value);
        },
    }
}
