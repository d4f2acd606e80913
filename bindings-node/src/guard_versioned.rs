//! `NativeVersionedCheck`: the core's guarded put on an object store that
//! compares versions ([`VersionedCheck`]: Google Cloud Storage's
//! generations, Azure Blob Storage's ETags) for lib/gcs.js and
//! lib/azure.js, which read the object and put it on the caller's own
//! client as its steps say and report what happened. Its steps are
//! [`NativeVersionedStep`]s: `read`, `put` (`version`, `null` for an object
//! that must not exist yet; `metadataKey`; `fence`), `done`.

use crate::error::to_napi;
use crate::fence::to_fence;
use crate::guard::NativeError;
use crate::guard_dynamo::verdict_parts;
use crate::guard_step::NativeDriverFailure;
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard::versioned_check::{
    Condition, VersionedCheck, VersionedObserved, VersionedStep, VersionedStore, MAX_TRIES,
};
use tinystore::{Code, Error};

/// What lib/gcs.js or lib/azure.js does next, or the protocol's end.
#[napi(object)]
#[derive(Default)]
pub struct NativeVersionedStep {
    /// `read` (the object's version and metadata), `put` or `done`.
    pub kind: String,
    /// The version `put` is conditional on (a generation or an ETag, as the
    /// read gave it); absent: the object must not exist yet.
    pub version: Option<String>,
    /// The metadata key `put` sets to `fence`.
    pub metadata_key: Option<String>,
    /// The fence `put` records, 40 digits.
    pub fence: Option<String>,
    /// The end of `done`: `accepted`, `refused` (the guard's own error) or
    /// `driver` (the driver's error, classified).
    pub verdict: Option<String>,
    /// The error of a `refused` or `driver` verdict.
    pub error: Option<NativeError>,
}

fn versioned_step(from: VersionedStep) -> NativeVersionedStep {
    match from {
        VersionedStep::Read => NativeVersionedStep {
            kind: "read".to_string(),
            ..NativeVersionedStep::default()
        },
        VersionedStep::Put {
            condition,
            metadata_key,
            fence,
        } => NativeVersionedStep {
            kind: "put".to_string(),
            version: match condition {
                Condition::Absent => None,
                Condition::Version(version) => Some(version),
            },
            metadata_key: Some(metadata_key.to_string()),
            fence: Some(fence),
            ..NativeVersionedStep::default()
        },
        VersionedStep::Done(verdict) => {
            let (verdict, error) = verdict_parts(verdict);
            NativeVersionedStep {
                kind: "done".to_string(),
                verdict: Some(verdict),
                error,
                ..NativeVersionedStep::default()
            }
        }
    }
}

/// The store a name stands for: `gcs` or `azure`.
fn store_named(name: &str) -> napi::Result<VersionedStore> {
    match name {
        "gcs" => Ok(VersionedStore::Gcs),
        "azure" => Ok(VersionedStore::Azure),
        other => Err(to_napi(Error::new(
            Code::Invalid,
            format!("unknown versioned store {other:?}: \"gcs\" or \"azure\""),
        ))),
    }
}

/// Checks the caller's own metadata names for a guarded put to `resource`
/// on `store` (`gcs` or `azure`): the guard's own key, in any case and
/// spelling, is `invalid`.
#[napi]
pub fn guard_versioned_check_metadata(
    store: String,
    resource: String,
    keys: Vec<String>,
) -> napi::Result<()> {
    store_named(&store)?
        .check_metadata(&resource, keys.iter().map(String::as_str))
        .map_err(to_napi)
}

/// The versioned guard's names and bound, from the core.
#[napi(object)]
pub struct NativeVersionedGuardConstants {
    /// The metadata key of the fence on GCS: `tinystore-fence`.
    pub gcs_metadata_key: String,
    /// The metadata key of the fence on Azure: `tinystore_fence`.
    pub azure_metadata_key: String,
    /// How many conditional puts a guarded put makes in all: 5.
    pub max_tries: u32,
}

/// The versioned guard's names and bound.
#[napi]
pub fn guard_versioned_constants() -> NativeVersionedGuardConstants {
    NativeVersionedGuardConstants {
        gcs_metadata_key: VersionedStore::Gcs.metadata_key().to_string(),
        azure_metadata_key: VersionedStore::Azure.metadata_key().to_string(),
        max_tries: MAX_TRIES,
    }
}

/// One guarded put of a fence to one object.
#[napi]
pub struct NativeVersionedCheck {
    inner: VersionedCheck,
}

#[napi]
impl NativeVersionedCheck {
    /// A guarded put of `fence` to the object `resource` (`BUCKET/NAME` or
    /// `CONTAINER/NAME`) on `store` (`gcs` or `azure`).
    #[napi(constructor)]
    pub fn new(
        store: String,
        resource: String,
        fence: BigInt,
    ) -> napi::Result<NativeVersionedCheck> {
        let on = store_named(&store)?;
        let fence = to_fence(&fence)?;
        Ok(NativeVersionedCheck {
            inner: VersionedCheck::new(on, &resource, fence),
        })
    }

    /// The first step (`read`), or the end for a bad resource.
    #[napi]
    pub fn start(&mut self) -> NativeVersionedStep {
        versioned_step(self.inner.start())
    }

    /// After a read found the object at `version`, with its fence metadata
    /// (`null` when it has none).
    #[napi]
    pub fn found(&mut self, version: String, fence: Option<String>) -> NativeVersionedStep {
        versioned_step(
            self.inner
                .observe(VersionedObserved::Found { version, fence }),
        )
    }

    /// After a read found no object.
    #[napi]
    pub fn absent(&mut self) -> NativeVersionedStep {
        versioned_step(self.inner.observe(VersionedObserved::Absent))
    }

    /// Says that an attempt of the put last given got `status` as its answer
    /// (none: no answer came); before the put's outcome is observed. Core
    /// decides whether it may have been written.
    #[napi]
    pub fn attempted(&mut self, status: Option<u32>) {
        self.inner
            .attempted(status.map(|s| u16::try_from(s).unwrap_or(u16::MAX)));
    }

    /// After the put landed.
    #[napi]
    pub fn written(&mut self) -> NativeVersionedStep {
        versioned_step(self.inner.observe(VersionedObserved::Written))
    }

    /// After the put's condition failed (412, or Azure's 409
    /// `BlobAlreadyExists`).
    #[napi]
    pub fn condition_failed(&mut self) -> NativeVersionedStep {
        versioned_step(self.inner.observe(VersionedObserved::ConditionFailed))
    }

    /// After a read or a put failed otherwise, as the client reported.
    #[napi]
    pub fn failed(&mut self, failure: NativeDriverFailure) -> NativeVersionedStep {
        versioned_step(
            self.inner
                .observe(VersionedObserved::Failed(failure.into())),
        )
    }
}
