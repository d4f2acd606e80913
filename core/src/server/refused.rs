//! `refused_write`: a client tells the server that a guard refused a late
//! write under one of its leases, and the engine counts it per group
//! (status, and the metric `tinystore_late_writes_refused_total`). One-way:
//! a good one is never answered; a bad one gets an `invalid` reply without
//! an id, naming what was wrong.

use super::connection::Connection;
use crate::error::{Error, Result};
use crate::guard::check_resource;
use crate::names::check_name;
use crate::vocab::GroupKind;

/// Counts one late write refused at `resource` under a lease of the group
/// `name` of `kind`.
pub(super) fn refused_write(conn: &Connection, kind: &str, name: &str, resource: &str) {
    if let Err(err) = count(conn, kind, name, resource) {
        conn.fail(None, &err);
    }
}

fn count(conn: &Connection, kind: &str, name: &str, resource: &str) -> Result<()> {
    let Some(group_kind) = GroupKind::from_label(kind) else {
        return Err(Error::invalid(format!(
            "\"kind\" must be lock, semaphore, rwlock or election, not {kind:?}"
        )));
    };
    check_name(name)?;
    check_resource(resource)?;
    conn.engine.refused(group_kind, name);
    tracing::debug!(
        target: "tinystore::guard",
        kind,
        name,
        resource,
        "a guard refused a late write under a lease of this group"
    );
    Ok(())
}
