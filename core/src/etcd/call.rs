//! Calls to etcd: each error mapped to a DESIGN.md code, and calls that are
//! safe to repeat retried a few times while the cluster is unavailable (a
//! member died, a new leader is being elected).

use super::members::Members;
use crate::error::{Code, Error, Result};
use etcd_client::Error as EtcdError;
use std::future::Future;
use std::time::Duration;
use tonic::Code as Grpc;

/// How many times a repeatable call is tried while etcd is unavailable.
const TRIES: u32 = 6;
/// The pause after the first unavailable answer; it doubles each try.
const FIRST_PAUSE: Duration = Duration::from_millis(50);

/// Maps an etcd client error to a tinystore error, naming `what` was done.
pub(crate) fn map(what: &str, err: EtcdError) -> Error {
    let code = match &err {
        EtcdError::GRpcStatus(status) => match status.code() {
            Grpc::Unavailable | Grpc::DeadlineExceeded | Grpc::Cancelled | Grpc::Aborted => {
                Code::Unavailable
            }
            // A connection reset or refused on the way, not an answer.
            Grpc::Unknown if std::error::Error::source(status).is_some() => Code::Unavailable,
            Grpc::NotFound => Code::LeaseLost,
            Grpc::InvalidArgument | Grpc::OutOfRange | Grpc::FailedPrecondition => Code::Invalid,
            Grpc::Unauthenticated | Grpc::PermissionDenied => Code::Unauthorized,
            Grpc::ResourceExhausted => Code::Limit,
            _ => Code::Internal,
        },
        EtcdError::TransportError(_)
        | EtcdError::IoError(_)
        | EtcdError::EndpointError(_)
        | EtcdError::WatchError(_) => Code::Unavailable,
        EtcdError::LeaseKeepAliveError(msg) if msg.contains("not found") => Code::LeaseLost,
        EtcdError::LeaseKeepAliveError(_) => Code::Unavailable,
        EtcdError::InvalidArgs(_) | EtcdError::InvalidUri(_) => Code::Invalid,
        _ => Code::Internal,
    };
    Error::new(code, format!("{what}: {err}"))
}

/// Runs `call` until it succeeds, fails with another code than
/// `unavailable`, or was tried `TRIES` times. Only for calls whose repeat
/// does no harm.
/// An unavailable answer moves later calls on to the next member.
pub(crate) async fn retry<T, F, Fut>(members: &Members, what: &str, mut call: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = std::result::Result<T, EtcdError>>,
{
    let mut pause = FIRST_PAUSE;
    let mut tries = 1;
    loop {
        let member = members.current();
        match call().await {
            Ok(value) => return Ok(value),
            Err(err) => {
                let err = map(what, err);
                if err.code() != Code::Unavailable {
                    return Err(err);
                }
                members.failed(member);
                if tries >= TRIES {
                    return Err(err);
                }
            }
        }
        tokio::time::sleep(pause).await;
        pause *= 2;
        tries += 1;
    }
}
