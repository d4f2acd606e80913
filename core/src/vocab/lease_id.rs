//! `LeaseId`: names one lease within one store (an engine, a server's
//! connection, or an etcd session).

/// Identifies a lease within one engine or backend.
pub(crate) type LeaseId = u64;
