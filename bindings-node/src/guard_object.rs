//! `NativeObjectWrite` and `NativeObjectRead`: the core's guarded write
//! ([`ObjectWrite`], a put or a delete's tombstone) and guarded read
//! ([`ObjectRead`]) of an object, for lib/s3.js, which makes each request
//! they give on the caller's own S3 client and reports the answer.

use crate::fence::to_fence;
use crate::guard_step::{object_observed, object_step, NativeGuardObserved, NativeGuardStep};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use std::collections::HashMap;
use tinystore::guard::{ObjectRead, ObjectWrite};

/// One guarded write of a fence to a bucket's key.
#[napi]
pub struct NativeObjectWrite {
    inner: ObjectWrite,
}

#[napi]
impl NativeObjectWrite {
    /// A guarded put of `fence` to `bucket`/`key` with the caller's own
    /// `metadata`, or with `tombstone` a guarded delete (an empty
    /// tombstone that keeps the fence).
    #[napi(constructor)]
    pub fn new(
        bucket: String,
        key: String,
        fence: BigInt,
        metadata: Option<HashMap<String, String>>,
        tombstone: bool,
    ) -> napi::Result<NativeObjectWrite> {
        let fence = to_fence(&fence)?;
        let inner = if tombstone {
            ObjectWrite::delete(&bucket, &key, fence)
        } else {
            let metadata = metadata.unwrap_or_default().into_iter().collect();
            ObjectWrite::put(&bucket, &key, fence, metadata)
        };
        Ok(NativeObjectWrite { inner })
    }

    /// The first step (a listing), or the end for bad input.
    #[napi]
    pub fn start(&mut self) -> NativeGuardStep {
        object_step(self.inner.start())
    }

    /// The step after `observed`, the answer to the step last given.
    #[napi]
    pub fn observe(&mut self, observed: NativeGuardObserved) -> napi::Result<NativeGuardStep> {
        Ok(object_step(self.inner.observe(object_observed(observed)?)))
    }
}

/// One guarded read of a bucket's key: the largest fence's object.
#[napi]
pub struct NativeObjectRead {
    inner: ObjectRead,
}

#[napi]
impl NativeObjectRead {
    /// A read of `bucket`/`key`.
    #[napi(constructor)]
    pub fn new(bucket: String, key: String) -> NativeObjectRead {
        NativeObjectRead {
            inner: ObjectRead::new(&bucket, &key),
        }
    }

    /// The first step (a listing), or the end for a bad bucket or key.
    #[napi]
    pub fn start(&mut self) -> NativeGuardStep {
        object_step(self.inner.start())
    }

    /// The step after `observed`, the answer to the step last given.
    #[napi]
    pub fn observe(&mut self, observed: NativeGuardObserved) -> napi::Result<NativeGuardStep> {
        Ok(object_step(self.inner.observe(object_observed(observed)?)))
    }

    /// After an accepted end: the fence of the object the last get read,
    /// or `null` when there is none (none listed, or a tombstone).
    #[napi]
    pub fn found(&self) -> Option<BigInt> {
        self.inner.found().map(|f| BigInt::from(f.get()))
    }
}
