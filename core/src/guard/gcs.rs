//! The guard on Google Cloud Storage (cargo feature `guard-gcs`), on
//! gcloud-storage's client (GCS's JSON API): the fence in the object's
//! metadata (`tinystore-fence`), each upload made on the generation read
//! (`ifGenerationMatch`, 0 for a new object), as
//! [`super::versioned_check`] decides.
//!
//! ```no_run
//! # async fn f(client: &gcloud_storage::client::Client, lease: &tinystore::Lease) -> Result<(), Box<dyn std::error::Error>> {
//! use gcloud_storage::http::objects::Object;
//! use tinystore::guard::gcs as guard;
//! let object = Object { name: "chats/42".into(), ..Object::default() };
//! guard::upload_object(client, "chats", &object, "the summary", lease.fence()).await?; // `stale` when a later holder wrote
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
use gcloud_storage::client::Client;
use gcloud_storage::http::objects::get::GetObjectRequest;
use gcloud_storage::http::objects::upload::{UploadObjectRequest, UploadType};
use gcloud_storage::http::objects::Object;
use gcloud_storage::http::Error;

/// `data` uploaded to `bucket` as `object` (its name, and your content
/// type and metadata), guarded by `fence`: `stale`, with nothing written,
/// when the object carries a larger fence; `corrupt` when its fence is not
/// 40 digits; `limit` after five uploads lost to other writers in a row.
/// The resource is `bucket/name`; the answer is the object as written.
pub async fn upload_object<'u>(
    client: &Client,
    bucket: &str,
    object: &Object,
    data: impl Into<Vec<u8>>,
    under: impl Into<Under<'u>>,
) -> Result<Object> {
    if bucket.is_empty() || object.name.is_empty() {
        return Err(crate::Error::invalid(format!(
            "a guarded upload names bucket {bucket:?} and object {:?}: both must be given; nothing was written",
            object.name
        )));
    }
    let resource = format!("{bucket}/{}", object.name);
    let metadata = object.metadata.iter().flatten().map(|(k, _)| k.as_str());
    VersionedStore::Gcs.check_metadata(&resource, metadata)?;
    let upload = Upload {
        client,
        bucket,
        object,
        data: data.into(),
    };
    under
        .into()
        .check_async("gcs", &resource, |fence| {
            put_versioned(&upload, VersionedStore::Gcs, &resource, fence)
        })
        .await
}

struct Upload<'a> {
    client: &'a Client,
    bucket: &'a str,
    object: &'a Object,
    data: Vec<u8>,
}

impl Versioned for Upload<'_> {
    type Error = Error;
    type Written = Object;

    async fn read(&self) -> std::result::Result<Option<Found>, Error> {
        let request = GetObjectRequest {
            bucket: self.bucket.to_string(),
            object: self.object.name.clone(),
            ..GetObjectRequest::default()
        };
        match self.client.get_object(&request).await {
            Ok(found) => Ok(Some(Found {
                version: found.generation.to_string(),
                fence: found
                    .metadata
                    .and_then(|m| m.get(VersionedStore::Gcs.metadata_key()).cloned()),
            })),
            Err(Error::Response(answer)) if answer.code == 404 => Ok(None),
            Err(err) => Err(err),
        }
    }

    async fn put(
        &self,
        condition: &Condition,
        key: &str,
        fence: &str,
    ) -> std::result::Result<Put<Object>, Error> {
        let generation = match condition {
            Condition::Absent => 0,
            // The read wrote it from an i64; a text that is not one matches
            // no generation, and the put's condition fails.
            Condition::Version(text) => text.parse().unwrap_or(-1),
        };
        let mut object = self.object.clone();
        let metadata = object.metadata.get_or_insert_with(Default::default);
        metadata.insert(key.to_string(), fence.to_string());
        let request = UploadObjectRequest {
            bucket: self.bucket.to_string(),
            if_generation_match: Some(generation),
            ..UploadObjectRequest::default()
        };
        let upload = UploadType::Multipart(Box::new(object));
        match self
            .client
            .upload_object(&request, self.data.clone(), &upload)
            .await
        {
            Ok(written) => Ok(Put::Written(written)),
            // gcloud-storage makes each request once (unless the caller's
            // client has a retry middleware, which the guard cannot see): a
            // 412 is the answer to this put's only attempt.
            Err(Error::Response(answer)) if answer.code == 412 => {
                Ok(Put::ConditionFailed { retried: vec![] })
            }
            Err(err) => Err(err),
        }
    }

    fn failure(err: &Error) -> DriverFailure {
        failure(err)
    }
}

/// What gcloud-storage reports of a failed call: the service's HTTP
/// status, or `connection` for a request that never got an answer.
pub fn failure(err: &Error) -> DriverFailure {
    let http_status = match err {
        Error::Response(answer) => Some(answer.code),
        Error::HttpClient(e) | Error::RawResponse(e, _) => e.status().map(|s| s.as_u16()),
        _ => None,
    };
    // gcloud-storage's HttpClient error is transparent: its source is not
    // the reqwest error itself, so look at it here.
    let lost = http_status.is_none()
        && match err {
            Error::HttpClient(e) => connection_lost(e),
            _ => connection_lost(err),
        };
    DriverFailure {
        http_status,
        error_code: lost.then(|| "connection".to_string()),
        message: err.to_string(),
        ..DriverFailure::default()
    }
}
