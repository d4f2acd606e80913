//! A request frame as it travels: its id, its operation and a key on the
//! wire, and the frame encoded as one line.

use serde::{Deserialize, Serialize};

/// One request as sent: its id and its operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFrame {
    /// The client-chosen id echoed in the reply; `hello` may omit it.
    pub id: Option<u64>,
    /// What is asked.
    pub op: Op,
}

/// A key on the wire: text, or an integer that stands for its decimal text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WireKey {
    /// A key given as text.
    Text(String),
    /// A key given as an integer.
    Int(i64),
    /// A key given as a non-negative integer above `i64::MAX`.
    UInt(u64),
}

impl WireKey {
    /// The key's text.
    pub fn text(&self) -> String {
        match self {
            WireKey::Text(t) => t.clone(),
            WireKey::Int(i) => i.to_string(),
            WireKey::UInt(u) => u.to_string(),
        }
    }
}

impl From<&str> for WireKey {
    fn from(text: &str) -> WireKey {
        WireKey::Text(text.to_string())
    }
}

/// Which side of a read-write lock an acquire asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireMode {
    /// A read lease: shared with other readers.
    Read,
    /// A write lease: alone, with a fence.
    Write,
}

/// The operations, each with its fields as on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// The first frame: the protocol version, and the token on TCP.
    Hello {
        /// The protocol version the client speaks.
        version: u32,
        /// The shared secret; required on TCP.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Waits first come first served for a key.
    Acquire {
        /// The group's name.
        name: String,
        /// The key.
        key: WireKey,
        /// Holders allowed at once: absent for a lock, set for a semaphore.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// For a read-write lock: `read` or `write` (absent for a lock or a
        /// semaphore).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<WireMode>,
        /// The places a semaphore's permit takes, from 1 to its limit
        /// (default 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weight: Option<u32>,
        /// The lease's TTL in milliseconds (default 15000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ttl_ms: Option<u64>,
        /// How long to wait in milliseconds; absent waits until cancelled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait_ms: Option<u64>,
        /// The longest the lease is kept after its grant, renewals
        /// included, in milliseconds (absent: no cap).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_hold_ms: Option<u64>,
        /// What the holder says about itself, kept with the lease: text of
        /// at most 1,024 bytes (absent or empty: nothing).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
    },
    /// Takes a key if it is free now.
    TryAcquire {
        /// The group's name.
        name: String,
        /// The key.
        key: WireKey,
        /// Holders allowed at once: absent for a lock, set for a semaphore.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// For a read-write lock: `read` or `write` (absent for a lock or a
        /// semaphore).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<WireMode>,
        /// The places a semaphore's permit takes, from 1 to its limit
        /// (default 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weight: Option<u32>,
        /// The lease's TTL in milliseconds (default 15000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ttl_ms: Option<u64>,
        /// The longest the lease is kept after its grant, renewals
        /// included, in milliseconds (absent: no cap).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_hold_ms: Option<u64>,
        /// What the holder says about itself, kept with the lease: text of
        /// at most 1,024 bytes (absent or empty: nothing).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
    },
    /// Extends a lease this connection holds by its TTL.
    Renew {
        /// The lease id from the acquire's reply.
        lease: String,
    },
    /// Releases a lease this connection holds.
    Release {
        /// The lease id from the acquire's reply.
        lease: String,
    },
    /// Gives up a pending acquire of this connection.
    Cancel {
        /// The id of the acquire request.
        target: u64,
    },
    /// The store's epoch, fences, holders and waiters: at most `limit` held
    /// leases and lines of waiters (default 1,000, at most 10,000), after
    /// the first `offset` of each (default 0).
    Status {
        /// How many held leases, and lines of waiters, to show at most.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// How many of each to pass over first, for the next page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
    },
    /// Writes a consistent copy of `kv.db` to a path on the server's machine.
    Backup {
        /// An absolute path on the server's machine.
        path: String,
    },
    /// Answers at once; for liveness checks.
    Ping {},
    /// Waits first come first served to lead an election; granted, it is a
    /// lease like an acquire's (renewed with `renew`, ended with `resign`
    /// or `release`), whose fence is the leader's term.
    Campaign {
        /// The election's name.
        name: String,
        /// What the leader says it is: text of at most 1,024 bytes.
        value: String,
        /// The leadership's TTL in milliseconds (default 15000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ttl_ms: Option<u64>,
        /// How long to wait in milliseconds; absent waits until cancelled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait_ms: Option<u64>,
        /// The longest the lease is kept after its grant, renewals
        /// included, in milliseconds (absent: no cap).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_hold_ms: Option<u64>,
    },
    /// Ends a leadership this connection holds: the next campaigner leads.
    Resign {
        /// The lease id from the campaign's reply.
        lease: String,
    },
    /// The leader of an election now, or none.
    Leader {
        /// The election's name.
        name: String,
    },
    /// Every change of an election's leader from now on, pushed as
    /// `leader` events naming this request's id, until cancelled.
    Observe {
        /// The election's name.
        name: String,
    },
    /// Every grant, end and change of queue length from now on in a group
    /// (or on one of its keys), pushed as `watch` events naming this
    /// request's id, until cancelled.
    Watch {
        /// The kind of group: `lock`, `semaphore` or `rwlock`.
        kind: String,
        /// The group's name.
        name: String,
        /// The key; absent watches every key of the group.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<WireKey>,
    },
    /// Stops the events of this connection's watch `watch` for now: its
    /// client has no room for them. The server takes none from the store
    /// until `watch_resume`; those it had no room to keep are then told as
    /// one `lagged`. Only to a server whose `hello` said `watch_pause`.
    WatchPause {
        /// The id of the `watch` request.
        watch: u64,
    },
    /// Goes on with the events of a paused watch `watch`.
    WatchResume {
        /// The id of the `watch` request.
        watch: u64,
    },
    /// The test kit, on a server started with `--testing` only: moves the
    /// store's time forward; leases whose TTL passes within run out.
    Advance {
        /// How far, in milliseconds.
        ms: u64,
    },
    /// The test kit, on a server started with `--testing` only: ends a
    /// lease (any connection's) as if it ran out.
    Expire {
        /// The lease id from the acquire's reply.
        lease: String,
    },
    /// The test kit, on a server started with `--testing` only: ends every
    /// lease held on a key, as if each ran out; the reply's `expired` says
    /// how many.
    ExpireKey {
        /// The group's name (a lock group's, a semaphore's or read-write
        /// locks': every kind with that name).
        name: String,
        /// The key.
        key: WireKey,
    },
    /// One-way, sent without an `id` and never answered: a guard refused
    /// a late write to `resource` under a lease of the group `name` of
    /// `kind`, for the server to count per group (status and metrics).
    RefusedWrite {
        /// The kind of group: `lock`, `rwlock`, `election` or `semaphore`.
        kind: String,
        /// The group's name.
        name: String,
        /// Where the write was refused, as the guard was told (at most
        /// 1,024 bytes; logged, not counted by).
        resource: String,
    },
}

impl Op {
    /// The operation's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Hello { .. } => "hello",
            Op::Acquire { .. } => "acquire",
            Op::TryAcquire { .. } => "try_acquire",
            Op::Renew { .. } => "renew",
            Op::Release { .. } => "release",
            Op::Cancel { .. } => "cancel",
            Op::Status { .. } => "status",
            Op::Backup { .. } => "backup",
            Op::Ping {} => "ping",
            Op::Campaign { .. } => "campaign",
            Op::Resign { .. } => "resign",
            Op::Leader { .. } => "leader",
            Op::Observe { .. } => "observe",
            Op::Watch { .. } => "watch",
            Op::WatchPause { .. } => "watch_pause",
            Op::WatchResume { .. } => "watch_resume",
            Op::Advance { .. } => "advance",
            Op::Expire { .. } => "expire",
            Op::ExpireKey { .. } => "expire_key",
            Op::RefusedWrite { .. } => "refused_write",
        }
    }
}

impl RequestFrame {
    /// The frame as one line of JSON, without the newline.
    pub fn encode(&self) -> String {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<u64>,
            #[serde(flatten)]
            op: &'a Op,
        }
        let out = Out {
            id: self.id,
            op: &self.op,
        };
        serde_json::to_string(&out).expect("a request always serializes")
    }
}
