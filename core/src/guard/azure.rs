//! The guard on Azure Blob Storage (cargo feature `guard-azure`), on the
//! object_store crate's client: the fence in the blob's metadata
//! (`tinystore_fence`), each put made on the ETag read (`If-Match`;
//! `If-None-Match: *` for a new blob), as [`super::versioned_check`]
//! decides.
//!
//! ```no_run
//! # async fn f(azure: &object_store::azure::MicrosoftAzure, lease: &tinystore::Lease) -> Result<(), Box<dyn std::error::Error>> {
//! use object_store::{path::Path, Attributes};
//! use tinystore::guard::azure as guard;
//! let path = Path::from("chats/42");
//! guard::put(azure, &path, "the summary".into(), Attributes::new(), lease.fence()).await?; // `stale` when a later holder wrote
//! # Ok(()) }
//! ```
//!
//! The put takes the fence or the lease itself ([`Under`]): given the
//! lease, a `stale` refusal is also told to its store, which counts the
//! late writes refused per group.

use super::driver::DriverFailure;
use super::versioned::{connection_lost, put as put_versioned, Found, Put, Versioned};
use super::versioned_check::{Condition, VersionedStore};
use super::Under;
use crate::error::Result;
use object_store::path::Path;
use object_store::{
    Attribute, Attributes, GetOptions, ObjectStore, PutMode, PutOptions, PutPayload, PutResult,
    UpdateVersion,
};

/// `payload` put at `path` by `client` (a `MicrosoftAzure`, or a store
/// that wraps one) with your `attributes` (content type, your own
/// metadata), guarded by `fence`: `stale`, with nothing written, when the
/// blob carries a larger fence; `corrupt` when its fence is not 40 digits;
/// `limit` after five puts lost to other writers in a row. The resource is
/// the path.
pub async fn put<'u>(
    client: &dyn ObjectStore,
    path: &Path,
    payload: PutPayload,
    attributes: Attributes,
    under: impl Into<Under<'u>>,
) -> Result<PutResult> {
    let resource = path.as_ref();
    let metadata = attributes.iter().filter_map(|(key, _)| match key {
        Attribute::Metadata(name) => Some(name.as_ref()),
        _ => None,
    });
    VersionedStore::Azure.check_metadata(resource, metadata)?;
    let blob = Blob {
        client,
        path,
        payload,
        attributes,
    };
    under
        .into()
        .check_async("azure", resource, |fence| {
            put_versioned(&blob, VersionedStore::Azure, resource, fence)
        })
        .await
}

struct Blob<'a> {
    client: &'a dyn ObjectStore,
    path: &'a Path,
    payload: PutPayload,
    attributes: Attributes,
}

impl Versioned for Blob<'_> {
    type Error = object_store::Error;
    type Written = PutResult;

    async fn read(&self) -> std::result::Result<Option<Found>, Self::Error> {
        let head = GetOptions {
            head: true,
            ..GetOptions::default()
        };
        let got = match self.client.get_opts(self.path, head).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(err) => return Err(err),
        };
        let Some(version) = got.meta.e_tag.clone() else {
            return Err(object_store::Error::Generic {
                store: "MicrosoftAzure",
                source: format!("the blob {} was read without its ETag", self.path).into(),
            });
        };
        let key = Attribute::Metadata(VersionedStore::Azure.metadata_key().into());
        let fence = got.attributes.get(&key).map(|v| v.as_ref().to_string());
        Ok(Some(Found { version, fence }))
    }

    async fn put(
        &self,
        condition: &Condition,
        key: &str,
        fence: &str,
    ) -> std::result::Result<Put<PutResult>, Self::Error> {
        let mut attributes = self.attributes.clone();
        attributes.insert(
            Attribute::Metadata(key.to_string().into()),
            fence.to_string().into(),
        );
        let mode = match condition {
            Condition::Absent => PutMode::Create,
            Condition::Version(etag) => PutMode::Update(UpdateVersion {
                e_tag: Some(etag.clone()),
                version: None,
            }),
        };
        let opts = PutOptions {
            mode,
            attributes,
            ..PutOptions::default()
        };
        match self
            .client
            .put_opts(self.path, self.payload.clone(), opts)
            .await
        {
            Ok(result) => Ok(Put::Written(result)),
            Err(
                err @ (object_store::Error::Precondition { .. }
                | object_store::Error::AlreadyExists { .. }),
            ) => Ok(Put::ConditionFailed {
                retried: retried(&err),
            }),
            Err(err) => Err(err),
        }
    }

    fn failure(err: &object_store::Error) -> DriverFailure {
        failure(err)
    }
}

/// The answers of the attempts object_store made again before `err`, as
/// far as it tells. It retries a request whose connection closed before
/// the answer came (even a conditional put, which it otherwise deems not
/// idempotent), a timeout of an idempotent one, and a 5xx, 408 or 429,
/// but says only how many (its `RetryError`'s text: "..., after N
/// retries, max_retries: M, ...", which
/// core/tests/integration/guard/versioned_lost.rs checks against Azurite),
/// not which answers they got: they are told as one attempt whose outcome
/// is unknown. A 429 so told makes a refusal `unavailable` where `stale`
/// was true: in doubt, never wrongly sure.
fn retried(err: &object_store::Error) -> Vec<Option<u16>> {
    if err.to_string().contains(" retries, max_retries: ") {
        vec![None]
    } else {
        vec![]
    }
}

/// What object_store reports of a failed call: 401, 403 or 404 as the
/// status, `connection` for a request that never got an answer.
pub fn failure(err: &object_store::Error) -> DriverFailure {
    let http_status = match err {
        object_store::Error::Unauthenticated { .. } => Some(401),
        object_store::Error::PermissionDenied { .. } => Some(403),
        object_store::Error::NotFound { .. } => Some(404),
        _ => None,
    };
    let lost = connection_lost(err);
    DriverFailure {
        http_status,
        error_code: lost.then(|| "connection".to_string()),
        message: err.to_string(),
        ..DriverFailure::default()
    }
}
