//! Renewing leases over a connection: one task per client renews each
//! renewing lease every ttl/3. A renewal that fails, or gets no answer
//! within the TTL, loses the lease.

use super::link::Link;
use super::table::{Due, RemoteLeases};
use crate::error::{Code, Error};
use crate::wire::Op;
use std::sync::{Arc, Weak};
use tokio::time::Instant;

/// Starts the renewer of `table` (the table calls this when it records
/// its first renewing lease); it stops when the table is dropped.
pub(super) fn spawn(table: &Arc<RemoteLeases<Link>>) {
    let weak: Weak<RemoteLeases<Link>> = Arc::downgrade(table);
    let wake = table.wake.clone();
    tokio::spawn(async move {
        loop {
            let next = {
                let Some(table) = weak.upgrade() else {
                    return;
                };
                let (due, next) = table.due(Instant::now());
                for renewal in due {
                    tokio::spawn(renew(table.clone(), renewal));
                }
                next
            };
            match next {
                Some(at) => {
                    tokio::select! {
                        _ = tokio::time::sleep_until(at) => {}
                        _ = wake.notified() => {}
                    }
                }
                None => wake.notified().await,
            }
        }
    });
}

/// Renews one lease, then schedules the next renewal or reports it lost.
async fn renew(table: Arc<RemoteLeases<Link>>, due: Due<Link>) {
    let renewal = due.link.call(
        Op::Renew {
            lease: due.wire.clone(),
        },
        None,
    );
    let reason = match tokio::time::timeout(due.ttl, renewal).await {
        Ok(Ok(_)) => return table.renewed(due.id),
        Ok(Err(err)) if err.code() == Code::LeaseLost => err,
        Ok(Err(err)) => Error::new(Code::LeaseLost, format!("renewing the lease failed: {err}")),
        Err(_) => Error::new(
            Code::LeaseLost,
            format!(
                "renewing the lease got no answer within its ttl of {:?}",
                due.ttl
            ),
        ),
    };
    table.lost(due.id, reason);
}
