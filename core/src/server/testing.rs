//! The test kit's operations (`advance`, `expire`, `expire_key`), which
//! only a server started with `--testing` answers: its engine refuses them
//! otherwise, with a message saying so.

use super::connection::Connection;
use super::leases::engine_id;
use crate::error::{Error, Result};
use crate::names::{check_key, check_name};
use crate::wire::{Reply, WireKey};
use std::sync::Arc;
use std::time::Duration;

/// `advance`: moves the store's time `ms` forward.
pub(super) fn advance(conn: &Arc<Connection>, id: u64, ms: u64) -> Result<()> {
    conn.engine.advance(Duration::from_millis(ms))?;
    conn.reply(Reply::ok(Some(id)));
    Ok(())
}

/// `expire`: ends a lease of any connection as if it ran out.
pub(super) fn expire(conn: &Arc<Connection>, id: u64, lease: &str) -> Result<()> {
    let engine =
        engine_id(lease).ok_or_else(|| Error::invalid(format!("{lease:?} is not a lease id")))?;
    conn.engine.expire(engine)?;
    conn.reply(Reply::ok(Some(id)));
    Ok(())
}

/// `expire_key`: ends every lease on a key, answering how many.
pub(super) fn expire_key(conn: &Arc<Connection>, id: u64, name: &str, key: &WireKey) -> Result<()> {
    check_name(name)?;
    let key = key.text();
    check_key(name, &key)?;
    let expired = conn.engine.expire_key(name, &key)?;
    conn.reply(Reply {
        expired: Some(expired as u64),
        ..Reply::ok(Some(id))
    });
    Ok(())
}
