//! Each etcd client error mapped to a tinystore error code.

use crate::error::{Code, Error};
use etcd_client::Error as EtcdError;
use tonic::Code as Grpc;

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
