//! The audit log: every grant and every end of a lease, one JSON object per
//! line, written as it happens, in the engine's own order. It lets a test
//! (or an operator) check the engine's history from outside: which fences
//! were given for which key, and that no two leases on a key overlapped.
//! Each line is one `write` with no buffering, so a killed process loses
//! nothing it had done.

use crate::error::{Error, Result};
use crate::fence::Fence;
use crate::vocab::KeyId;
use crate::vocab::LeaseId;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// An append-only audit file.
pub(crate) struct Audit {
    file: File,
    path: String,
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
        self.write(serde_json::json!({ "ev": "open", "epoch": epoch.to_string() }));
    }

    /// A lease was granted.
    pub(super) fn granted(&mut self, id: LeaseId, key: &KeyId, fence: Option<Fence>) {
        self.write(serde_json::json!({
            "ev": "grant", "lease": id, "fenced": key.fenced(), "name": key.name(), "key": key.key(),
            "fence": fence.map(|f| f.to_string()),
        }));
    }

    /// A lease ended: released, ran out, closed, or never taken by its waiter.
    pub(super) fn ended(&mut self, id: LeaseId, key: &KeyId, why: &str) {
        self.write(serde_json::json!({
            "ev": "end", "lease": id, "fenced": key.fenced(), "name": key.name(), "key": key.key(), "why": why,
        }));
    }
}
