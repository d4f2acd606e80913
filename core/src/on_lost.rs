//! Callbacks told when a lease is lost: what `Lease::on_lost` and
//! `Permit::on_lost` start.
//!
//! Nothing runs per lease while it is held: a watch polls the lease's lost
//! signal with a waker of its own, first on the thread that starts it. A
//! wake (the signal changed) only queues the watch; one thread of the
//! core, started on first use, polls the queued watches and runs their
//! callbacks. So no callback runs on the thread that ended the lease,
//! which may hold the store's locks. A lease its holder released queues
//! nothing: its callback is not due, so the thread is not woken for it,
//! and a lease that stays held costs that thread nothing either.

use crate::error::Error;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Wake, Waker};

/// A future that resolves when a lease ends, with the reason.
pub(crate) type Ending = Pin<Box<dyn Future<Output = Error> + Send>>;

type Callback = Box<dyn FnOnce(Error) + Send>;

/// A callback waiting for a lease to be lost. Dropping this handle does not
/// cancel the callback; `cancel` does.
pub struct OnLost {
    watch: Arc<Watch>,
}

impl OnLost {
    /// Starts watching: `callback` gets the reason once `ending` resolves,
    /// unless the holder had released the lease first (`released` set).
    pub(crate) fn start(
        ending: Ending,
        released: Arc<AtomicBool>,
        callback: impl FnOnce(Error) + Send + 'static,
    ) -> OnLost {
        let watch = Arc::new(Watch {
            released,
            lost_first: AtomicBool::new(false),
            slot: Mutex::new(Some((ending, Box::new(callback)))),
        });
        // The first poll, here, leaves the watch's waker with the lease;
        // only an ending that already came goes to the thread.
        if watch.ended_now() {
            queue().push(watch.clone());
        }
        OnLost { watch }
    }

    /// Cancels the callback: it is not called after this returns, unless
    /// it had already started.
    pub fn cancel(&self) {
        let taken = locked(&self.watch.slot).take();
        drop(taken);
    }
}

impl std::fmt::Debug for OnLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting = locked(&self.watch.slot).is_some();
        f.debug_struct("OnLost").field("waiting", &waiting).finish()
    }
}

/// One lease's watch: its ending, its callback, and how it ended.
struct Watch {
    /// The lease's flag, set when its holder releases or drops it.
    released: Arc<AtomicBool>,
    /// A wake found the lease ended while its holder still held it.
    lost_first: AtomicBool,
    /// `None` once the callback ran or was cancelled.
    slot: Mutex<Option<(Ending, Callback)>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watch {
    /// Whether the ended lease was lost rather than released by its holder.
    /// A wake comes as the lease ends, so what it saw decides (a wake that
    /// found it released queues nothing, so is never polled here); a lease
    /// that ended before its watch started is decided by the flag now.
    fn was_lost(&self) -> bool {
        self.lost_first.load(Ordering::SeqCst) || !self.released.load(Ordering::SeqCst)
    }

    /// Polls `ending` (this watch's, from its slot) with this watch's waker.
    fn poll_ending(self: &Arc<Self>, ending: &mut Ending) -> Poll<Error> {
        let waker = Waker::from(self.clone());
        ending.as_mut().poll(&mut Context::from_waker(&waker))
    }

    /// Polls the ending once, leaving this watch's waker with it: whether it
    /// had resolved already (its callback then waits in the slot for
    /// [`Watch::poll`] on the watch thread). Never runs the callback.
    fn ended_now(self: &Arc<Self>) -> bool {
        let mut slot = locked(&self.slot);
        let Some((ending, _)) = slot.as_mut() else {
            return false;
        };
        match self.poll_ending(ending) {
            Poll::Ready(reason) => {
                // The thread polls it again: it must find the same reason.
                *ending = Box::pin(std::future::ready(reason));
                true
            }
            Poll::Pending => false,
        }
    }

    /// Polls the ending (on the watch thread only) and runs the callback
    /// when it resolved.
    fn poll(self: &Arc<Self>) {
        let mut slot = locked(&self.slot);
        let Some((ending, _)) = slot.as_mut() else {
            return;
        };
        let Poll::Ready(reason) = self.poll_ending(ending) else {
            return;
        };
        let taken = slot.take();
        drop(slot);
        if let Some((_, callback)) = taken {
            if self.was_lost() {
                // A panicking callback must not end the thread every other
                // callback runs on.
                let _ = catch_unwind(AssertUnwindSafe(|| callback(reason)));
            }
        }
    }
}

impl Wake for Watch {
    /// Queues the watch unless its holder had released the lease: never
    /// polls here, since the waker is called by whoever ended the lease,
    /// perhaps with the store's locks held. A lease its holder released has
    /// no callback due, so nothing is queued: the ending and the callback
    /// are dropped with the watch.
    fn wake(self: Arc<Self>) {
        if self.released.load(Ordering::SeqCst) {
            return;
        }
        self.lost_first.store(true, Ordering::SeqCst);
        queue().push(self);
    }
}

/// The watches to poll, and the thread that polls them.
struct Queue {
    watches: Mutex<VecDeque<Arc<Watch>>>,
    ready: Condvar,
    /// Whether the thread started; if it could not, watches are polled by
    /// whoever queues them.
    running: bool,
}

fn queue() -> &'static Queue {
    static QUEUE: OnceLock<Queue> = OnceLock::new();
    QUEUE.get_or_init(|| Queue {
        watches: Mutex::new(VecDeque::new()),
        ready: Condvar::new(),
        running: std::thread::Builder::new()
            .name("tinystore-lost".into())
            .spawn(|| queue().run())
            .is_ok(),
    })
}

impl Queue {
    fn push(&self, watch: Arc<Watch>) {
        if !self.running {
            watch.poll();
            return;
        }
        locked(&self.watches).push_back(watch);
        self.ready.notify_one();
    }

    /// Polls queued watches for the rest of the process.
    fn run(&self) {
        loop {
            let mut watches = locked(&self.watches);
            let watch = loop {
                match watches.pop_front() {
                    Some(watch) => break watch,
                    None => watches = self.ready.wait(watches).unwrap_or_else(|p| p.into_inner()),
                }
            };
            drop(watches);
            watch.poll();
        }
    }
}
