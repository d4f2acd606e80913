//! What `hold` and `elect` hold while CMD runs: a lock's or a write
//! lease, a permit (a semaphore's, or a read lease), a leadership, or the
//! leases of several keys at once. Each says what it is, what CMD is told
//! of it, whether it is still held, and when it is lost.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use tinystore::{Code, Error, Fence, Leadership, Lease, Permit};

/// The variables of CMD's environment that tell it its fences; each is
/// set or removed (an outer hold's must not leak into an inner CMD).
pub const FENCE_VARIABLES: [&str; 4] = [
    "TINYSTORE_FENCE",
    "TINYSTORE_FENCE_TEXT",
    "TINYSTORE_FENCES",
    "TINYSTORE_FENCES_TEXT",
];

/// What a command holds while CMD runs.
pub trait Held {
    /// What it is, for messages: "the lease on jobs/42 (fence 1234)".
    fn what(&self) -> String;
    /// Its fences, in the order the keys were named: one for a lease or a
    /// leadership (its term), one per key for several keys, none for a
    /// permit.
    fn fences(&self) -> Vec<Fence>;
    /// Whether it is still held (every part of it).
    fn is_held(&self) -> bool;
    /// Resolves when it (any part of it) is lost, with why.
    async fn lost(&self) -> Error;
    /// Gives it up; fails with why when it was lost first.
    async fn release(&self) -> tinystore::Result<()>;
}

/// CMD's fence variables for `fences`: one fence is `TINYSTORE_FENCE`
/// (decimal) and `TINYSTORE_FENCE_TEXT` (40 digits); several (a fence per
/// key) are `TINYSTORE_FENCES` and `TINYSTORE_FENCES_TEXT`, space-separated
/// in the order the keys were named, and `TINYSTORE_FENCE` is then unset:
/// no one fence is right for every key (a key lost while the others were
/// being taken may have a later holder whose fence is below the largest).
/// A variable not set is removed.
pub fn fence_env(fences: &[Fence]) -> Vec<(&'static str, Option<String>)> {
    let (one, several) = match fences {
        [fence] => (Some(*fence), None),
        [] => (None, None),
        all => (None, Some(all)),
    };
    let list = |f: fn(Fence) -> String| {
        several.map(|all| {
            all.iter()
                .map(|&fence| f(fence))
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    vec![
        (FENCE_VARIABLES[0], one.map(|f| f.to_string())),
        (FENCE_VARIABLES[1], one.map(Fence::text)),
        (FENCE_VARIABLES[2], list(|f| f.to_string())),
        (FENCE_VARIABLES[3], list(Fence::text)),
    ]
}

impl Held for Lease {
    fn what(&self) -> String {
        format!(
            "the lease on {}/{} (fence {})",
            self.name(),
            self.key(),
            self.fence()
        )
    }
    fn fences(&self) -> Vec<Fence> {
        vec![self.fence()]
    }
    fn is_held(&self) -> bool {
        Lease::is_held(self)
    }
    async fn lost(&self) -> Error {
        Lease::lost(self).await
    }
    async fn release(&self) -> tinystore::Result<()> {
        Lease::release(self).await
    }
}

impl Held for Permit {
    fn what(&self) -> String {
        format!("the permit on {}/{}", self.name(), self.key())
    }
    fn fences(&self) -> Vec<Fence> {
        Vec::new()
    }
    fn is_held(&self) -> bool {
        Permit::is_held(self)
    }
    async fn lost(&self) -> Error {
        Permit::lost(self).await
    }
    async fn release(&self) -> tinystore::Result<()> {
        Permit::release(self).await
    }
}

/// A read lease of a read-write lock: a permit, named as what it is.
pub struct Reading(pub Permit);

impl Held for Reading {
    fn what(&self) -> String {
        format!("the read lease on {}/{}", self.0.name(), self.0.key())
    }
    fn fences(&self) -> Vec<Fence> {
        Vec::new()
    }
    fn is_held(&self) -> bool {
        self.0.is_held()
    }
    async fn lost(&self) -> Error {
        self.0.lost().await
    }
    async fn release(&self) -> tinystore::Result<()> {
        self.0.release().await
    }
}

impl Held for Leadership {
    fn what(&self) -> String {
        format!(
            "the leadership of election {} (term {})",
            self.name(),
            self.fence()
        )
    }
    fn fences(&self) -> Vec<Fence> {
        vec![self.fence()]
    }
    fn is_held(&self) -> bool {
        Leadership::is_held(self)
    }
    async fn lost(&self) -> Error {
        Leadership::lost(self).await
    }
    async fn release(&self) -> tinystore::Result<()> {
        self.resign().await
    }
}

/// The leases of several keys of one lock group, held together.
pub struct Several(pub Vec<Lease>);

impl Held for Several {
    fn what(&self) -> String {
        let keys: Vec<String> = self
            .0
            .iter()
            .map(|l| format!("{} (fence {})", l.key(), l.fence()))
            .collect();
        let name = self.0.first().map_or("", |l| l.name());
        format!("the leases on {name}/{}", keys.join(", "))
    }
    fn fences(&self) -> Vec<Fence> {
        self.0.iter().map(Lease::fence).collect()
    }
    fn is_held(&self) -> bool {
        self.0.iter().all(Lease::is_held)
    }
    async fn lost(&self) -> Error {
        let mut losses: Vec<Pin<Box<_>>> = self.0.iter().map(|l| Box::pin(l.lost())).collect();
        std::future::poll_fn(|cx| {
            for loss in &mut losses {
                if let Poll::Ready(reason) = loss.as_mut().poll(cx) {
                    return Poll::Ready(reason);
                }
            }
            Poll::Pending
        })
        .await
    }
    /// Releases every lease; the first loss (`lease_lost`) found stands
    /// for all, else the first error.
    async fn release(&self) -> tinystore::Result<()> {
        let mut outcome: tinystore::Result<()> = Ok(());
        for lease in &self.0 {
            if let Err(err) = lease.release().await {
                let lost_first = matches!(&outcome, Err(e) if e.code() == Code::LeaseLost);
                if outcome.is_ok() || (err.code() == Code::LeaseLost && !lost_first) {
                    outcome = Err(err);
                }
            }
        }
        outcome
    }
}
