//! What the server sends: replies to requests and pushed events.

use crate::election::Leader;
use crate::error::{Code, Error};
use crate::fence::Fence;
use crate::status::Status;
use crate::watch::WatchEvent;
use serde::{Deserialize, Serialize};

/// An error as it travels: an error code and a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireError {
    /// The code's spelling, e.g. `"lease_lost"`.
    pub code: String,
    /// What went wrong, naming the thing it is about.
    pub message: String,
}

impl From<&Error> for WireError {
    fn from(err: &Error) -> WireError {
        WireError {
            code: err.code().as_str().to_string(),
            message: err.message().to_string(),
        }
    }
}

impl WireError {
    /// The error this stands for; an unknown code becomes `internal`.
    pub fn to_error(&self) -> Error {
        match Code::parse(&self.code) {
            Some(code) => Error::new(code, self.message.clone()),
            None => Error::new(
                Code::Internal,
                format!("unknown error code {:?}: {}", self.code, self.message),
            ),
        }
    }
}

/// The one reply to a request. Fields that do not apply are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The request's id; absent only when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// Whether the request succeeded.
    pub ok: bool,
    /// `hello`: the protocol version the server speaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// `hello`: the store's epoch, as a decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<String>,
    /// `hello`: `true` when the server takes `watch_pause` and
    /// `watch_resume` (a server that leaves it out does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_pause: Option<bool>,
    /// `acquire`, `try_acquire`: whether a lease was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<bool>,
    /// `acquire`, `try_acquire`: the opaque lease id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<String>,
    /// `acquire`, `try_acquire` on a lock: the fence, a decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<Fence>,
    /// `cancel`: whether the acquire was still waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<bool>,
    /// `status`: the store's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Box<Status>>,
    /// `leader`, `observe`: the leader now; `Some(None)` (`null` on the
    /// wire) when nobody leads.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "given"
    )]
    pub leader: Option<Option<WireLeader>>,
    /// `expire_key`: how many leases were ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired: Option<u64>,
    /// When `ok` is false: what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
}

impl Reply {
    /// A success with nothing more to say.
    pub fn ok(id: Option<u64>) -> Reply {
        Reply {
            id,
            ok: true,
            ..Reply::default()
        }
    }

    /// A failure with `err`.
    pub fn err(id: Option<u64>, err: &Error) -> Reply {
        Reply {
            id,
            ok: false,
            error: Some(err.into()),
            ..Reply::default()
        }
    }

    /// The reply's error as an [`Error`], if it failed.
    pub fn into_result(self) -> Result<Reply, Error> {
        if self.ok {
            return Ok(self);
        }
        Err(match &self.error {
            Some(e) => e.to_error(),
            None => Error::new(Code::Internal, "the server failed without an error"),
        })
    }
}

/// A field given, even as `null`: `Some(None)`; a field left out is
/// `None` (by `default`).
fn given<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// An election's leader as it travels: its value and its term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireLeader {
    /// What the leader said it is.
    pub value: String,
    /// Its term, a decimal string.
    pub fence: Fence,
}

impl From<Leader> for WireLeader {
    fn from(leader: Leader) -> WireLeader {
        WireLeader {
            value: leader.value,
            fence: leader.fence,
        }
    }
}

impl From<WireLeader> for Leader {
    fn from(leader: WireLeader) -> Leader {
        Leader {
            value: leader.value,
            fence: leader.fence,
        }
    }
}

/// A watch's event on the wire: `what` happened, and the fields that kind
/// of event has (the others absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireWatch {
    /// The id of the `watch` request.
    pub watch: u64,
    /// `granted`, `released`, `lost`, `queue` or `lagged`.
    pub what: String,
    /// The key (all but `lagged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The lease's fence (`granted`, `released`, `lost`; absent for a
    /// permit or a read lease).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<Fence>,
    /// The holder's data (`granted`, when it has some).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Why a lease was lost (`lost`): `expired`, `disconnected`, `closed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The queue's new length (`queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// How many events the watcher missed (`lagged`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missed: Option<u64>,
}

impl WireWatch {
    /// Watch `watch`'s `event` as the wire gives it.
    pub fn new(watch: u64, event: WatchEvent) -> WireWatch {
        let mut wire = WireWatch {
            watch,
            what: event.kind().to_string(),
            key: event.key().map(str::to_string),
            fence: None,
            data: None,
            cause: None,
            length: None,
            missed: None,
        };
        match event {
            WatchEvent::Granted { fence, data, .. } => (wire.fence, wire.data) = (fence, data),
            WatchEvent::Released { fence, .. } => wire.fence = fence,
            WatchEvent::Lost { fence, cause, .. } => {
                (wire.fence, wire.cause) = (fence, Some(cause))
            }
            WatchEvent::Queue { length, .. } => wire.length = Some(length),
            WatchEvent::Lagged { missed } => wire.missed = Some(missed),
        }
        wire
    }

    /// The event it carries; `internal` when a field its kind needs is
    /// missing or its kind is unknown.
    pub fn event(self) -> Result<WatchEvent, Error> {
        let missing = |field: &str| {
            Error::new(
                Code::Internal,
                format!(
                    "the server sent a {} watch event without {field}",
                    self.what
                ),
            )
        };
        let key = || self.key.clone().ok_or_else(|| missing("a key"));
        Ok(match self.what.as_str() {
            "granted" => WatchEvent::Granted {
                key: key()?,
                fence: self.fence,
                data: self.data.clone(),
            },
            "released" => WatchEvent::Released {
                key: key()?,
                fence: self.fence,
            },
            "lost" => WatchEvent::Lost {
                key: key()?,
                fence: self.fence,
                cause: self.cause.clone().ok_or_else(|| missing("a cause"))?,
            },
            "queue" => WatchEvent::Queue {
                key: key()?,
                length: self.length.ok_or_else(|| missing("a length"))?,
            },
            "lagged" => WatchEvent::Lagged {
                missed: self.missed.ok_or_else(|| missing("missed"))?,
            },
            other => {
                return Err(Error::new(
                    Code::Internal,
                    format!("the server sent a watch event of unknown kind {other:?}"),
                ))
            }
        })
    }
}

/// An event the server pushes without being asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A lease of this connection ended without the client releasing it.
    Lost {
        /// The lease it is about.
        lease: String,
        /// Why: an error code, `lease_lost` or `closed`.
        code: String,
        /// The reason in words.
        message: String,
    },
    /// The leader of an observed election changed.
    Leader {
        /// The id of the `observe` request.
        observe: u64,
        /// The new leader; `null` when nobody leads.
        leader: Option<WireLeader>,
    },
    /// Something happened in a watched group (the `what` of a
    /// [`WatchEvent`](crate::WatchEvent): `granted`, `released`, `lost`,
    /// `queue`, `lagged`), with the fields it has.
    Watch(WireWatch),
    /// A watch ended without the client cancelling it: `closed` (the
    /// server is shutting down).
    WatchEnd {
        /// The id of the `watch` request.
        watch: u64,
        /// Why, an error code.
        code: String,
        /// The reason in words.
        message: String,
    },
    /// An observer ended without the client cancelling it: `closed` (the
    /// server is shutting down) or `limit` (it fell too far behind).
    ObserveEnd {
        /// The id of the `observe` request.
        observe: u64,
        /// Why, an error code.
        code: String,
        /// The reason in words.
        message: String,
    },
}

impl Event {
    /// The event telling that `lease` ended for `reason`.
    pub fn lost(lease: &str, reason: &Error) -> Event {
        Event::Lost {
            lease: lease.to_string(),
            code: reason.code().as_str().to_string(),
            message: reason.message().to_string(),
        }
    }

    /// The event telling observer `observe` its election's leader is now
    /// `leader`.
    pub fn leader(observe: u64, leader: Option<Leader>) -> Event {
        Event::Leader {
            observe,
            leader: leader.map(WireLeader::from),
        }
    }

    /// The event telling watch `watch` it ended for `reason`.
    pub fn watch_end(watch: u64, reason: &Error) -> Event {
        Event::WatchEnd {
            watch,
            code: reason.code().as_str().to_string(),
            message: reason.message().to_string(),
        }
    }

    /// The event telling observer `observe` it ended for `reason`.
    pub fn observe_end(observe: u64, reason: &Error) -> Event {
        Event::ObserveEnd {
            observe,
            code: reason.code().as_str().to_string(),
            message: reason.message().to_string(),
        }
    }
}

/// A line from the server: a reply or an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFrame {
    /// The reply to a request.
    Reply(Reply),
    /// A pushed event.
    Event(Event),
}

impl ServerFrame {
    /// Decodes a line from the server.
    pub fn decode(line: &[u8]) -> Result<ServerFrame, Error> {
        // An event as this server writes it (its tag first) is read in one
        // pass, as is a reply, the usual frame: a reply has `ok` and an
        // event has not, so neither is taken for the other.
        // A watch's event, the most frequent by far, skips serde's buffering
        // of a tagged enum: its fields are read as the object they are.
        if let Some(fields) = line.strip_prefix(br#"{"event":"watch","#.as_slice()) {
            let mut object = Vec::with_capacity(fields.len() + 1);
            object.push(b'{');
            object.extend_from_slice(fields);
            if let Ok(watch) = serde_json::from_slice::<WireWatch>(&object) {
                return Ok(ServerFrame::Event(Event::Watch(watch)));
            }
        }
        if line.starts_with(br#"{"event":"#) {
            if let Ok(event) = serde_json::from_slice::<Event>(line) {
                return Ok(ServerFrame::Event(event));
            }
        }
        if let Ok(reply) = serde_json::from_slice::<Reply>(line) {
            return Ok(ServerFrame::Reply(reply));
        }
        let value: serde_json::Value = serde_json::from_slice(line)
            .map_err(|e| Error::new(Code::Internal, format!("the server sent a bad frame: {e}")))?;
        let frame = if value.get("event").is_some() {
            serde_json::from_value(value).map(ServerFrame::Event)
        } else {
            serde_json::from_value(value).map(ServerFrame::Reply)
        };
        frame.map_err(|e| Error::new(Code::Internal, format!("the server sent a bad frame: {e}")))
    }

    /// The frame as one line of JSON, without the newline.
    pub fn encode(&self) -> String {
        let text = match self {
            ServerFrame::Reply(r) => serde_json::to_string(r),
            ServerFrame::Event(e) => serde_json::to_string(e),
        };
        text.expect("server frames always serialize")
    }
}
