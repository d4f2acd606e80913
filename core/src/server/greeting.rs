//! The greeting: what a connection may send before and with `hello`, and
//! how a connection that does not authenticate is refused.

use super::auth::token_matches;
use super::connection::Connection;
use super::gate::Pass;
use crate::error::{Code, Error};
use crate::wire::{Reply, MAX_FRAME_BYTES, MAX_STRANGER_FRAME_BYTES, VERSION};

/// What became of a connection after a frame of its greeting.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Greeting {
    /// It said hello and may now ask for anything.
    Greeted,
    /// It has not said hello yet, and may still.
    Waiting,
    /// It is refused: the connection closes.
    Refused,
}

/// Answers `hello` (request `id`): checks the token (on TCP), the wire
/// version and that the gate has room for one more member.
pub(super) fn hello(
    conn: &Connection,
    id: Option<u64>,
    version: u32,
    token: Option<String>,
    pass: &mut Pass,
) -> Greeting {
    if let Some(expected) = conn.transport.token() {
        let given = token.unwrap_or_default();
        if !token_matches(given.as_bytes(), expected.as_bytes()) {
            return unauthorized(conn, id, "the token is missing or wrong");
        }
    }
    if version != VERSION {
        let err = Error::new(
            Code::Invalid,
            format!("this server speaks wire version {VERSION}, not {version}"),
        );
        conn.fail(id, &err);
        // On TCP nothing is served before a successful hello: it closes.
        return if conn.is_tcp() {
            Greeting::Refused
        } else {
            Greeting::Waiting
        };
    }
    if let Err(err) = pass.greeted() {
        conn.fail(id, &err);
        return Greeting::Refused;
    }
    conn.reply(Reply {
        id,
        ok: true,
        version: Some(VERSION),
        epoch: Some(conn.engine.epoch().to_string()),
        watch_pause: Some(true),
        ..Reply::default()
    });
    Greeting::Greeted
}

/// Answers a request other than `hello` (named `op`, request `id`) that
/// came before hello: on TCP the connection is refused, on the Unix socket
/// it is told to say hello first.
pub(super) fn before_hello(conn: &Connection, id: Option<u64>, op: &str) -> Greeting {
    let what = format!("{op:?} came before hello");
    if conn.is_tcp() {
        return unauthorized(conn, id, &format!("{what}; authenticate first"));
    }
    conn.fail(
        id,
        &Error::new(Code::Invalid, format!("{what}; say hello first")),
    );
    Greeting::Waiting
}

/// Answers a frame that could not be decoded before hello (`err`, for
/// request `id` if it had one): on TCP the connection is refused.
pub(super) fn undecoded(conn: &Connection, id: Option<u64>, err: &Error) -> Greeting {
    if conn.is_tcp() {
        return unauthorized(conn, id, "the first frame must be a valid hello");
    }
    conn.fail(id, err);
    Greeting::Waiting
}

/// Answers a frame of `len` bytes or more that was over the limit; before
/// hello on TCP, the connection is refused.
pub(super) fn too_long(conn: &Connection, len: usize, greeted: bool) -> Greeting {
    if !greeted && conn.is_tcp() {
        let why = format!(
            "a frame of {len} bytes or more came before hello; before hello the limit is \
             {MAX_STRANGER_FRAME_BYTES} bytes"
        );
        return unauthorized(conn, None, &why);
    }
    let err = Error::new(
        Code::Limit,
        format!("a frame of {len} bytes is over the limit of {MAX_FRAME_BYTES} bytes"),
    );
    conn.fail(None, &err);
    if greeted {
        Greeting::Greeted
    } else {
        Greeting::Waiting
    }
}

/// Tells a client it is not authenticated (and logs why, never a token);
/// the connection then closes.
pub(super) fn unauthorized(conn: &Connection, id: Option<u64>, why: &str) -> Greeting {
    tracing::warn!(target: "tinystore::auth", why, "refused authentication");
    conn.metrics.refused(conn.transport.label());
    conn.fail(id, &Error::new(Code::Unauthorized, why));
    Greeting::Refused
}
