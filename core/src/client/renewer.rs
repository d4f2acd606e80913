//! Keeping a lease alive over a connection: renew it every ttl/3; a renewal
//! that fails, or gets no answer within the TTL, loses the lease.

use super::link::Link;
use crate::engine::LeaseId;
use crate::error::{Code, Error};
use crate::wire::Op;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::AbortHandle;

/// Starts renewing the lease `wire` (locally `id`) every `ttl / 3`.
pub(super) fn spawn(link: Arc<Link>, id: LeaseId, wire: String, ttl: Duration) -> AbortHandle {
    tokio::spawn(async move {
        let every = ttl / 3;
        loop {
            tokio::time::sleep(every).await;
            let renewal = link.call(
                Op::Renew {
                    lease: wire.clone(),
                },
                None,
            );
            let reason = match tokio::time::timeout(ttl, renewal).await {
                Ok(Ok(_)) => continue,
                Ok(Err(err)) if err.code() == Code::LeaseLost => err,
                Ok(Err(err)) => {
                    Error::new(Code::LeaseLost, format!("renewing the lease failed: {err}"))
                }
                Err(_) => Error::new(
                    Code::LeaseLost,
                    format!("renewing the lease got no answer within its ttl of {ttl:?}"),
                ),
            };
            link.table.lost(id, reason);
            return;
        }
    })
    .abort_handle()
}
