//! The guard on S3 and S3-compatible stores (cargo feature `guard-s3`), on
//! the AWS SDK's client the caller already made: a guarded put, a guarded
//! delete and the guarded read, driven by
//! [`ObjectWrite`] and [`ObjectRead`];
//! this file makes their requests.
//!
//! A guarded object is one object per fence under its key
//! ([`object_layout`](super::object_layout)), read back by the largest: read
//! it with [`get`]. A stored fence above ours is `stale` (resource
//! `bucket/key`); the SDK's own errors are errors of the code core
//! classifies them as (`unauthorized`, `unavailable`, `io`), their
//! [`source`](std::error::Error::source) the SDK's error. A put and a
//! delete take the fence or the lease itself ([`Under`]): given the lease,
//! a `stale` refusal is also told to its store.
//!
//! ```no_run
//! # async fn demo(client: &aws_sdk_s3::Client) -> Result<(), tinystore::Error> {
//! use tinystore::{guard, Fence};
//! let fence = Fence::from_u128(7); // the lease's fence
//! guard::s3::put(client, "summaries", "chats/42.json", b"{}", fence).await?;
//! let read = guard::s3::get(client, "summaries", "chats/42.json").await?;
//! assert_eq!(read.map(|r| r.fence), Some(fence));
//! guard::s3::delete(client, "summaries", "chats/42.json", fence).await?;
//! # Ok(()) }
//! ```

use super::{DriverFailure, ObjectObserved, ObjectRead, ObjectStep, ObjectWrite, Under, Verdict};
use crate::error::{Error, Result};
use crate::fence::Fence;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use std::collections::HashMap;

/// What a guarded put wrote: its fence's object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The object's key (`key/tinystore-fence/<40 digits>`).
    pub key: String,
    /// Its ETag, as the store gave it.
    pub etag: Option<String>,
    /// Its version id, in a bucket with versioning on.
    pub version_id: Option<String>,
}

/// What a guarded read found: the body and fence of the largest fence's
/// object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The object's body.
    pub body: Vec<u8>,
    /// The fence it was written with.
    pub fence: Fence,
    /// The caller's own metadata written with it.
    pub metadata: HashMap<String, String>,
}

/// Writes `body` to `bucket`/`key` with `fence`, unless a larger fence is
/// stored there (`stale`). See the module's documentation.
pub async fn put<'u>(
    client: &Client,
    bucket: &str,
    key: &str,
    body: &[u8],
    under: impl Into<Under<'u>>,
) -> Result<Written> {
    put_with_metadata(client, bucket, key, body, under, &HashMap::new()).await
}

/// [`put`], with the caller's own metadata beside the fence. A key of the
/// guard's own (`tinystore-fence`, `tinystore-deleted`) is `invalid`.
pub async fn put_with_metadata<'u>(
    client: &Client,
    bucket: &str,
    key: &str,
    body: &[u8],
    under: impl Into<Under<'u>>,
    metadata: &HashMap<String, String>,
) -> Result<Written> {
    let metadata: Vec<(String, String)> = metadata
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let resource = format!("{bucket}/{key}");
    under
        .into()
        .check_async("s3", &resource, |fence| {
            write(
                client,
                bucket,
                ObjectWrite::put(bucket, key, fence, metadata),
                body,
            )
        })
        .await
}

/// Deletes `bucket`/`key` with `fence`, unless a larger fence is stored
/// there (`stale`): an empty tombstone, which keeps the fence, so that a
/// late holder cannot bring the object back; [`get`] reads it as none.
pub async fn delete<'u>(
    client: &Client,
    bucket: &str,
    key: &str,
    under: impl Into<Under<'u>>,
) -> Result<Written> {
    let resource = format!("{bucket}/{key}");
    under
        .into()
        .check_async("s3", &resource, |fence| {
            write(client, bucket, ObjectWrite::delete(bucket, key, fence), b"")
        })
        .await
}

/// Reads `bucket`/`key` as the guard keeps it: the largest fence's object,
/// or `None` when there is none (never written, or deleted).
pub async fn get(client: &Client, bucket: &str, key: &str) -> Result<Option<Found>> {
    let mut machine = ObjectRead::new(bucket, key);
    let mut steps = Steps::new(client, bucket, b"");
    let mut step = machine.start();
    loop {
        if let ObjectStep::Done(verdict) = step {
            steps.finish(verdict)?;
            return Ok(machine
                .found()
                .zip(steps.read)
                .map(|(fence, (body, mut metadata))| {
                    metadata.retain(|k, _| !is_guards_own(k));
                    Found {
                        body,
                        fence,
                        metadata,
                    }
                }));
        }
        step = machine.observe(steps.make(step).await);
    }
}

async fn write(
    client: &Client,
    bucket: &str,
    mut machine: ObjectWrite,
    body: &[u8],
) -> Result<Written> {
    let mut steps = Steps::new(client, bucket, body);
    let mut step = machine.start();
    loop {
        if let ObjectStep::Done(verdict) = step {
            steps.finish(verdict)?;
            return steps.written.ok_or_else(|| {
                Error::new(
                    crate::Code::Internal,
                    "a guarded write was accepted without a put",
                )
            });
        }
        step = machine.observe(steps.make(step).await);
    }
}

/// The requests of a guard's machine, made on one bucket with the AWS
/// SDK: what [`put`], [`delete`] and [`get`] drive their machines with,
/// public so that a caller can drive an [`ObjectWrite`] or [`ObjectRead`]
/// step by step (a test that puts another writer between two steps).
pub struct Steps<'a> {
    client: &'a Client,
    bucket: &'a str,
    body: &'a [u8],
    /// What the last put wrote.
    pub written: Option<Written>,
    /// What the last get read: its body and metadata.
    pub read: Option<(Vec<u8>, HashMap<String, String>)>,
    cause: Option<crate::Cause>,
}

impl<'a> Steps<'a> {
    /// Steps on `bucket` through `client`; a put writes `body` (give an
    /// empty one to a delete's machine).
    pub fn new(client: &'a Client, bucket: &'a str, body: &'a [u8]) -> Steps<'a> {
        Steps {
            client,
            bucket,
            body,
            written: None,
            read: None,
            cause: None,
        }
    }

    /// Makes the request `step` names, and gives what the store answered.
    pub async fn make(&mut self, step: ObjectStep) -> ObjectObserved {
        let (client, bucket) = (self.client, self.bucket);
        let (observed, cause) = match step {
            ObjectStep::List { prefix } => listed(client, bucket, &prefix).await,
            ObjectStep::Put { key, metadata } => {
                let request = client
                    .put_object()
                    .bucket(bucket)
                    .key(&key)
                    .body(ByteStream::from(self.body.to_vec()))
                    .set_metadata(Some(metadata.into_iter().collect()));
                match request.send().await {
                    Ok(out) => {
                        self.written = Some(Written {
                            key,
                            etag: out.e_tag().map(str::to_string),
                            version_id: out.version_id().map(str::to_string),
                        });
                        (ObjectObserved::Written, None)
                    }
                    Err(err) => sdk_failed(err),
                }
            }
            ObjectStep::Delete { key } => {
                match client.delete_object().bucket(bucket).key(key).send().await {
                    Ok(_) => (ObjectObserved::Deleted, None),
                    Err(err) => sdk_failed(err),
                }
            }
            ObjectStep::Get { key } => {
                match client.get_object().bucket(bucket).key(&key).send().await {
                    Ok(out) => {
                        let metadata = out.metadata().cloned().unwrap_or_default();
                        match out.body.collect().await {
                            Ok(body) => {
                                let observed = ObjectObserved::Got {
                                    metadata: metadata.clone().into_iter().collect(),
                                };
                                self.read = Some((body.into_bytes().to_vec(), metadata));
                                (observed, None)
                            }
                            Err(err) => failed(
                                DriverFailure {
                                    error_code: Some("connection".into()),
                                    ..DriverFailure::new(err.to_string())
                                },
                                err,
                            ),
                        }
                    }
                    Err(err) => sdk_failed(err),
                }
            }
            ObjectStep::Done(_) => {
                let message = "the S3 guard was asked to make a step that is the end".to_string();
                (ObjectObserved::Failed(DriverFailure::new(message)), None)
            }
        };
        self.cause = cause;
        observed
    }

    /// The verdict as a result: a driver's failure with the SDK's error (of
    /// the step that failed) as its cause.
    pub fn finish(&mut self, verdict: Verdict) -> Result<()> {
        match verdict {
            Verdict::Driver(err) => Err(match self.cause.take() {
                Some(cause) => err.with_shared_cause(cause),
                None => err,
            }),
            other => other.into_result(),
        }
    }
}

type Observed = (ObjectObserved, Option<crate::Cause>);

/// Every key under `prefix`, all pages.
async fn listed(client: &Client, bucket: &str, prefix: &str) -> Observed {
    let mut keys = Vec::new();
    let mut pages = client
        .list_objects_v2()
        .bucket(bucket)
        .prefix(prefix)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        match page {
            Ok(page) => keys.extend(
                page.contents()
                    .iter()
                    .filter_map(|o| o.key().map(str::to_string)),
            ),
            Err(err) => return sdk_failed(err),
        }
    }
    (ObjectObserved::Listed(keys), None)
}

fn sdk_failed<E, R>(err: SdkError<E, R>) -> Observed
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: HasStatus + std::fmt::Debug + Send + Sync + 'static,
{
    let connection = matches!(
        err,
        SdkError::DispatchFailure(_) | SdkError::TimeoutError(_)
    );
    let failure = DriverFailure {
        http_status: err.raw_response().map(HasStatus::status_code),
        error_code: if connection {
            Some("connection".into())
        } else {
            err.code().map(str::to_string)
        },
        ..DriverFailure::new(aws_sdk_s3::error::DisplayErrorContext(&err).to_string())
    };
    failed(failure, err)
}

fn failed(
    failure: DriverFailure,
    cause: impl std::error::Error + Send + Sync + 'static,
) -> Observed {
    (
        ObjectObserved::Failed(failure),
        Some(std::sync::Arc::new(cause)),
    )
}

fn is_guards_own(key: &str) -> bool {
    key.eq_ignore_ascii_case(super::object::METADATA_KEY)
        || key.eq_ignore_ascii_case(super::object::TOMBSTONE_KEY)
}

/// The HTTP status of an SDK response.
trait HasStatus {
    fn status_code(&self) -> u16;
}

impl HasStatus for aws_sdk_s3::config::http::HttpResponse {
    fn status_code(&self) -> u16 {
        self.status().as_u16()
    }
}
