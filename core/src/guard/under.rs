//! What a guarded write is made under: a fence alone, or the lease itself.
//! Given the lease, a guard takes its fence and, when it refuses the write
//! as `stale`, tells the lease's store ([`Lease::report_refused`]), which
//! counts the late writes refused per group; that never blocks nor fails
//! the write's own path.

use crate::error::{Code, Result};
use crate::fence::Fence;
use crate::lease::Lease;

/// A fence, or a lease to take the fence from and to tell of a refusal.
/// Every guard takes `impl Into<Under>`: a [`Fence`], a `&Lease` or a
/// `&blocking::Lease`.
#[derive(Debug, Clone, Copy)]
pub enum Under<'a> {
    /// A fence alone: a refusal is told to nobody.
    Fence(Fence),
    /// The lease itself: a refusal is told to its store.
    Lease(&'a Lease),
}

impl Under<'_> {
    /// The fence the write carries.
    pub fn fence(&self) -> Fence {
        match self {
            Under::Fence(fence) => *fence,
            Under::Lease(lease) => lease.fence(),
        }
    }

    /// Runs `check` (a guard's protocol for a write to `resource`, in
    /// `backend`: `sqlite`, `postgres`, `mysql`, ...) with the fence, then
    /// tells the lease's store of a `stale` refusal ([`Under::told`]); with
    /// the cargo feature `otel`, inside a `tinystore.guard.check` span.
    // Used by the guards behind cargo features: none may be on.
    #[cfg_attr(
        not(any(feature = "guard-sqlite", feature = "guard-http")),
        allow(dead_code)
    )]
    pub(crate) fn check<T>(
        &self,
        backend: &'static str,
        resource: &str,
        check: impl FnOnce(Fence) -> Result<T>,
    ) -> Result<T> {
        #[cfg(feature = "otel")]
        let span = crate::otel::Checking::start(resource, self.fence());
        let verdict = check(self.fence());
        #[cfg(feature = "otel")]
        span.end(backend, &verdict);
        #[cfg(not(feature = "otel"))]
        let _ = backend;
        self.told(resource, verdict)
    }

    /// [`Under::check`] of a protocol that awaits.
    #[cfg_attr(
        not(any(
            feature = "guard-postgres",
            feature = "guard-mysql",
            feature = "guard-redis",
            feature = "guard-s3",
            feature = "guard-dynamodb",
            feature = "guard-gcs",
            feature = "guard-azure"
        )),
        allow(dead_code)
    )]
    pub(crate) async fn check_async<T, F>(
        &self,
        backend: &'static str,
        resource: &str,
        check: impl FnOnce(Fence) -> F,
    ) -> Result<T>
    where
        F: std::future::Future<Output = Result<T>>,
    {
        #[cfg(feature = "otel")]
        let span = crate::otel::Checking::start(resource, self.fence());
        let verdict = check(self.fence()).await;
        #[cfg(feature = "otel")]
        span.end(backend, &verdict);
        #[cfg(not(feature = "otel"))]
        let _ = backend;
        self.told(resource, verdict)
    }

    /// `result`, a guard's verdict on a write to `resource`, after telling
    /// the lease's store when it is a `stale` refusal under a lease.
    pub fn told<T>(&self, resource: &str, result: Result<T>) -> Result<T> {
        if let (Under::Lease(lease), Err(err)) = (self, &result) {
            if err.code() == Code::Stale {
                lease.report_refused(resource);
            }
        }
        result
    }
}

impl From<Fence> for Under<'_> {
    fn from(fence: Fence) -> Self {
        Under::Fence(fence)
    }
}

impl<'a> From<&'a Lease> for Under<'a> {
    fn from(lease: &'a Lease) -> Self {
        Under::Lease(lease)
    }
}

impl<'a> From<&'a crate::blocking::Lease> for Under<'a> {
    fn from(lease: &'a crate::blocking::Lease) -> Self {
        Under::Lease(lease.as_async())
    }
}
