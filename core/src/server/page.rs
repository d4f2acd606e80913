//! The live page of `serve --page`, on the metrics listener: `GET /` is one
//! self-contained HTML file (page.html, no outside scripts) that reads
//! `GET /page.json` every [`POLL_MS`] and shows each group, its holders
//! with their fence, age and data, each key's queue, and the latest grants
//! and losses ([`super::recent`]).
//!
//! The HTML carries no data of the store and is served to anyone who
//! reaches the listener; `/page.json` needs the server's TCP token as
//! `Authorization: Bearer TOKEN` (the page takes it from its address's
//! `#token=` fragment, which browsers never send, or asks for it), and is
//! refused with `401` without it. Polling, not a stream: each poll is one
//! short request on the listener's small HTTP, and a page left open holds
//! no connection.

use super::auth::token_matches;
use super::http::{Reply, Request};
use super::recent::{Event, Recent};
use crate::engine::Engine;
use crate::status::{Status, StatusPage};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The page, as served at `/`.
const HTML: &str = include_str!("page.html");

/// How often the page reads `/page.json`, in milliseconds (page.html
/// polls at this period; a test reads it from the page).
pub const POLL_MS: u64 = 400;

/// The most held leases, and apart from them lines of waiters, one
/// snapshot lists (by group name, then key); the totals count them all.
pub const PAGE_HOLDERS: usize = 5_000;

/// What the page shows a browser, and who may read it.
pub(super) struct Page {
    token: String,
    recent: Arc<Recent>,
}

/// What `/page.json` answers.
#[derive(Serialize)]
struct Snapshot {
    /// The server's time, in milliseconds since 1970 (events' `at_ms`
    /// are on the same clock).
    now_ms: u64,
    poll_ms: u64,
    /// The store's status: its holders (with `held_ms` and, where the
    /// holder gave one, `data`) and queues, the first [`PAGE_HOLDERS`].
    status: Status,
    /// Each group among those listed, by kind then name.
    groups: Vec<Group>,
    /// The latest grants and losses, oldest first.
    grants: Vec<Event>,
    losses: Vec<Event>,
}

/// A group's figures, counted over the leases and queues listed, and the
/// late writes its leases' guards refused (counted over all).
#[derive(Serialize, Default, Debug, PartialEq)]
struct Group {
    kind: String,
    name: String,
    held: usize,
    queues: usize,
    waiters: usize,
    late_writes_refused: u64,
}

impl Page {
    /// The page of a server whose token is `token`, showing `recent`.
    pub(super) fn new(token: String, recent: Arc<Recent>) -> Page {
        Page { token, recent }
    }

    /// Whether `path` is one of the page's.
    pub(super) fn serves(path: &str) -> bool {
        path == "/" || path == "/page.json"
    }

    /// Answers a request for one of the page's paths.
    pub(super) fn answer(&self, request: &Request, engine: &Engine) -> Reply {
        if request.method != "GET" {
            return Reply::text("405 Method Not Allowed", "only GET is served here\n")
                .with("Allow", "GET");
        }
        if request.path == "/" {
            return Reply::new("200 OK", "text/html; charset=utf-8", HTML)
                .with(
                    "Content-Security-Policy",
                    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
                )
                .with("X-Content-Type-Options", "nosniff")
                .with("Referrer-Policy", "no-referrer")
                .with("Cache-Control", "no-store");
        }
        if !self.authorized(request) {
            return Reply::text(
                "401 Unauthorized",
                "the page's data needs the server's token: Authorization: Bearer TOKEN\n",
            )
            .with("WWW-Authenticate", "Bearer");
        }
        match serde_json::to_vec(&self.snapshot(engine)) {
            Ok(body) => {
                Reply::new("200 OK", "application/json", body).with("Cache-Control", "no-store")
            }
            Err(e) => Reply::text("500 Internal Server Error", format!("{e}\n")),
        }
    }

    fn authorized(&self, request: &Request) -> bool {
        let given = request
            .header("authorization")
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        token_matches(given.trim().as_bytes(), self.token.as_bytes())
    }

    fn snapshot(&self, engine: &Engine) -> Snapshot {
        let status = engine.status(StatusPage {
            offset: 0,
            limit: PAGE_HOLDERS,
        });
        let (grants, losses) = self.recent.events();
        Snapshot {
            now_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            poll_ms: POLL_MS,
            groups: groups_of(&status),
            status,
            grants,
            losses,
        }
    }
}

/// The groups of the leases and queues `status` lists, and those with late
/// writes refused, with their counts.
fn groups_of(status: &Status) -> Vec<Group> {
    let mut groups: BTreeMap<(String, String), Group> = BTreeMap::new();
    for held in &status.held {
        let g = groups
            .entry((held.kind.clone(), held.name.clone()))
            .or_insert_with(|| new_group(&held.kind, &held.name));
        g.held += 1;
    }
    for line in &status.waiting {
        let g = groups
            .entry((line.kind.clone(), line.name.clone()))
            .or_insert_with(|| new_group(&line.kind, &line.name));
        g.queues += 1;
        g.waiters += line.waiters;
    }
    for refused in &status.late_writes_refused {
        let g = groups
            .entry((refused.kind.clone(), refused.name.clone()))
            .or_insert_with(|| new_group(&refused.kind, &refused.name));
        g.late_writes_refused += refused.refused;
    }
    groups.into_values().collect()
}

fn new_group(kind: &str, name: &str) -> Group {
    Group {
        kind: kind.to_string(),
        name: name.to_string(),
        ..Group::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_count_holders_queues_and_refusals() {
        let status: Status = serde_json::from_value(serde_json::json!({
            "epoch": 1, "fences_given": 3, "last_fence": null, "grace_left_ms": null,
            "held": [
                {"name": "jobs", "key": "a", "fence": null, "ttl_ms": 1, "left_ms": 1, "renewing": false, "kind": "lock"},
                {"name": "jobs", "key": "b", "fence": null, "ttl_ms": 1, "left_ms": 1, "renewing": false, "kind": "lock"},
                {"name": "jobs", "key": "a", "fence": null, "ttl_ms": 1, "left_ms": 1, "renewing": false, "kind": "semaphore"}
            ],
            "waiting": [{"name": "jobs", "key": "a", "kind": "lock", "waiters": 3}],
            "late_writes_refused": [{"name": "old", "kind": "lock", "refused": 2}]
        }))
        .unwrap();
        let group = |kind: &str, name: &str, held, queues, waiters, refused| Group {
            kind: kind.into(),
            name: name.into(),
            held,
            queues,
            waiters,
            late_writes_refused: refused,
        };
        assert_eq!(
            groups_of(&status),
            [
                group("lock", "jobs", 2, 1, 3, 0),
                group("lock", "old", 0, 0, 0, 2),
                group("semaphore", "jobs", 1, 0, 0, 0),
            ]
        );
    }
}
