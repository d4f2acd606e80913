//! The guard on S3 and S3-compatible stores (cargo feature `guard-s3`), on
//! the AWS SDK's client the caller already made: a guarded put and a
//! guarded delete, with S3's conditional writes.
//!
//! Each try reads the object's ETag and fence (a HEAD; 404: no object),
//! asks [`object::decide_put`](super::object::decide_put), and writes with
//! `If-None-Match: *` or `If-Match: <etag>`, the fence in the metadata
//! [`METADATA_KEY`] as 40 digits. A `412 Precondition Failed` (or a `409
//! ConditionalRequestConflict`) means another writer came in between: read
//! again and decide again, [`MAX_TRIES`] tries in all, then
//! [`too_many_races`](super::object::too_many_races) (`limit`). A stored
//! fence above ours is `stale` (resource `bucket/key`); nothing is written.
//!
//! ```no_run
//! # async fn demo(client: &aws_sdk_s3::Client) -> Result<(), tinystore::Error> {
//! use tinystore::{guard, Fence};
//! let fence = Fence::from_u128(7); // the lease's fence
//! guard::s3::put(client, "summaries", "chats/42.json", b"{}", fence).await?;
//! guard::s3::delete(client, "summaries", "chats/42.json", fence).await?;
//! # Ok(()) }
//! ```

use super::object::{
    check_metadata, decide_put, head_refused, too_many_races, Condition, Stored, MAX_TRIES,
    METADATA_KEY, TOMBSTONE_KEY,
};
use crate::error::{Code, Error, Result};
use crate::fence::Fence;
use aws_sdk_s3::error::SdkError;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use md5::{Digest, Md5};
use std::collections::HashMap;

/// What a guarded put wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The new object's ETag, as the store gave it.
    pub etag: Option<String>,
    /// Its version id, in a bucket with versioning on.
    pub version_id: Option<String>,
}

/// Writes `body` to `bucket`/`key` with `fence`, unless the object holds a
/// larger one (`stale`). See the module's documentation.
pub async fn put(
    client: &Client,
    bucket: &str,
    key: &str,
    body: &[u8],
    fence: Fence,
) -> Result<Written> {
    put_with_metadata(client, bucket, key, body, fence, &HashMap::new()).await
}

/// [`put`], with the caller's own metadata beside the fence. A key of the
/// guard's own ([`METADATA_KEY`], [`TOMBSTONE_KEY`]) is `invalid`.
pub async fn put_with_metadata(
    client: &Client,
    bucket: &str,
    key: &str,
    body: &[u8],
    fence: Fence,
    metadata: &HashMap<String, String>,
) -> Result<Written> {
    let resource = format!("{bucket}/{key}");
    check_metadata(&resource, metadata.keys().map(String::as_str))?;
    guarded_put(client, bucket, key, body, fence, metadata.clone()).await
}

/// Deletes `bucket`/`key` with `fence`, unless the object holds a larger
/// one (`stale`): a guarded put of an empty tombstone (metadata
/// [`TOMBSTONE_KEY`] `true`), so that the fence stays and a late holder
/// cannot bring the object back.
pub async fn delete(client: &Client, bucket: &str, key: &str, fence: Fence) -> Result<Written> {
    let metadata = HashMap::from([(TOMBSTONE_KEY.to_string(), "true".to_string())]);
    guarded_put(client, bucket, key, b"", fence, metadata).await
}

/// Whether an object, as a plain GET or HEAD gives its metadata, is a
/// guarded delete's tombstone.
pub fn is_tombstone(metadata: Option<&HashMap<String, String>>) -> bool {
    metadata
        .and_then(|m| m.get(TOMBSTONE_KEY))
        .is_some_and(|v| v == "true")
}

async fn guarded_put(
    client: &Client,
    bucket: &str,
    key: &str,
    body: &[u8],
    fence: Fence,
    mut metadata: HashMap<String, String>,
) -> Result<Written> {
    let resource = format!("{bucket}/{key}");
    let md5 = hex_md5(body);
    metadata.insert(METADATA_KEY.to_string(), fence.text());
    for _ in 0..MAX_TRIES {
        let head = head(client, bucket, key, &resource).await?;
        let stored = head.as_ref().map(|(etag, fence)| Stored {
            etag,
            fence: fence.as_deref(),
        });
        let condition = decide_put(&resource, fence, stored, &md5)?;
        let request = client
            .put_object()
            .bucket(bucket)
            .key(key)
            .body(ByteStream::from(body.to_vec()))
            .set_metadata(Some(metadata.clone()));
        let request = match condition {
            Condition::Create => request.if_none_match("*"),
            Condition::Replace(etag) => request.if_match(etag),
        };
        match request.send().await {
            Ok(out) => {
                return Ok(Written {
                    etag: out.e_tag().map(str::to_string),
                    version_id: out.version_id().map(str::to_string),
                })
            }
            Err(err) => match status(&err) {
                // Another writer came in between: read and decide again.
                Some(412) | Some(409) => continue,
                _ => return Err(sdk_error("writing", &resource, err)),
            },
        }
    }
    Err(too_many_races(&resource))
}

/// The object's ETag and fence metadata; `None` when there is none.
async fn head(
    client: &Client,
    bucket: &str,
    key: &str,
    resource: &str,
) -> Result<Option<(String, Option<String>)>> {
    match client.head_object().bucket(bucket).key(key).send().await {
        Ok(out) => {
            let etag = out.e_tag().unwrap_or_default().to_string();
            let fence = out.metadata().and_then(|m| m.get(METADATA_KEY)).cloned();
            Ok(Some((etag, fence)))
        }
        Err(err) => match status(&err) {
            Some(404) => Ok(None),
            Some(403) => Err(head_refused(resource, 403)),
            _ => Err(sdk_error("reading", resource, err)),
        },
    }
}

fn status<E, R: HasStatus>(err: &SdkError<E, R>) -> Option<u16> {
    err.raw_response().map(HasStatus::status_code)
}

trait HasStatus {
    fn status_code(&self) -> u16;
}

impl HasStatus for aws_sdk_s3::config::http::HttpResponse {
    fn status_code(&self) -> u16 {
        self.status().as_u16()
    }
}

fn sdk_error<E, R>(doing: &str, resource: &str, err: SdkError<E, R>) -> Error
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug + HasStatus,
{
    let code = match &err {
        SdkError::DispatchFailure(_) | SdkError::TimeoutError(_) => Code::Unavailable,
        _ => Code::Io,
    };
    let status = status(&err).map(|s| format!(" ({s})")).unwrap_or_default();
    let detail = aws_sdk_s3::error::DisplayErrorContext(&err);
    Error::new(
        code,
        format!("{doing} object {resource:?}{status}: s3: {detail}"),
    )
}

/// The hex MD5 of `body`: the ETag S3 gives a single-part object.
pub fn hex_md5(body: &[u8]) -> String {
    Md5::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
