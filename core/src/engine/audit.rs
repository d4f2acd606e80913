//! The audit log: every grant, renewal and end of a lease, one JSON object
//! per line, written as it happens, in the engine's own order. It lets a
//! test (or an operator) check the engine's history from outside: which
//! fences were given for which key, that no key ever had more holders (or
//! weight) than it allows, and that no lease was renewed past its
//! `max_hold`. Each line is one `write` with no buffering, so a killed
//! process loses nothing it had done.
//!
//! Times (`at_us`, `ends_by_us`, `expires_us`) are microseconds since this
//! run of the engine started (an `open` line starts a run): a grant's and
//! a renewal's are the engine's own clock; an end's is read as its line is
//! written, which is never earlier.

use crate::error::{Error, Result};
use crate::fence::Fence;
use crate::vocab::LeaseId;
use crate::vocab::{KeyId, Request};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// An append-only audit file.
pub(crate) struct Audit {
    file: File,
    path: String,
    /// When it was opened: before the engine's clock starts, so that an
    /// end's time read here is never earlier than the engine's.
    opened: Instant,
}

impl Audit {
    /// Opens `path` for appending, making it if missing.
    pub(crate) fn open(path: &Path) -> Result<Audit> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(format!("cannot open the audit log {}", path.display()), e))?;
        Ok(Audit {
            file,
            path: path.display().to_string(),
            opened: Instant::now(),
        })
    }

    fn write(&mut self, line: serde_json::Value) {
        let mut text = line.to_string();
        text.push('\n');
        if let Err(err) = self.file.write_all(text.as_bytes()) {
            // Not `eprintln!`: it panics, here under the engine's lock, when
            // stderr is closed too.
            let _ = writeln!(
                std::io::stderr(),
                "tinystore: cannot write the audit log {}: {err}",
                self.path
            );
        }
    }

    /// The engine started with `epoch`: leases of earlier runs are gone.
    pub(super) fn opened(&mut self, epoch: u64) {
        self.opened = Instant::now();
        self.write(serde_json::json!({ "ev": "open", "epoch": epoch.to_string() }));
    }

    /// A lease was granted for `request` at `at` (nanoseconds of the
    /// engine's clock), to be kept no later than `ends_by` (`u64::MAX`
    /// without a `max_hold`). The line names the kind of group, the mode
    /// (`read` or `write`, for a read-write lock), the places it takes
    /// (`weight`) of the key's `limit`, its TTL and `max_hold`.
    pub(super) fn granted(
        &mut self,
        id: LeaseId,
        request: &Request,
        fence: Option<Fence>,
        at: u64,
        ends_by: u64,
    ) {
        let key = request.key();
        self.write(serde_json::json!({
            "ev": "grant", "lease": id, "kind": key.kind(), "mode": mode(key, request.fenced()),
            "fenced": request.fenced(), "name": key.name(), "key": key.key(),
            "fence": fence.map(|f| f.to_string()),
            "weight": request.weight(), "limit": request.limit(), "ttl_ms": request.ttl_ms(),
            "max_hold_ms": request.max_hold_ms(),
            "at_us": at / 1_000, "ends_by_us": (ends_by != u64::MAX).then_some(ends_by / 1_000),
        }));
    }

    /// A held lease was renewed at `at` to run out at `expires`
    /// (nanoseconds of the engine's clock).
    pub(super) fn renewed(&mut self, id: LeaseId, key: &KeyId, at: u64, expires: u64) {
        self.write(serde_json::json!({
            "ev": "renew", "lease": id, "kind": key.kind(), "name": key.name(), "key": key.key(),
            "at_us": at / 1_000, "expires_us": expires / 1_000,
        }));
    }

    /// A lease (`fenced`: one that carried a fence) ended: released, ran
    /// out, closed, or never taken by its waiter.
    pub(super) fn ended(&mut self, id: LeaseId, key: &KeyId, fenced: bool, why: &str) {
        let at = u64::try_from(self.opened.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.write(serde_json::json!({
            "ev": "end", "lease": id, "kind": key.kind(), "fenced": fenced,
            "name": key.name(), "key": key.key(), "why": why, "at_us": at,
        }));
    }
}

/// `read` or `write` for a read-write lock's lease (`fenced`: a write
/// lease); `None` for any other kind.
fn mode(key: &KeyId, fenced: bool) -> Option<&'static str> {
    match (key.kind(), fenced) {
        ("rwlock", true) => Some("write"),
        ("rwlock", false) => Some("read"),
        _ => None,
    }
}
