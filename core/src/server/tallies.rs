//! Several [`Tally`]s told as one: the engine tells one, and the server
//! may have more than one listener (the metrics, and the live page's
//! latest events when it is served).

use crate::engine::Tally;
use crate::vocab::KeyId;
use std::sync::Arc;
use std::time::Duration;

/// Tells each of its tallies, in order, what it is told.
pub(super) struct Tallies(pub Vec<Arc<dyn Tally>>);

impl Tally for Tallies {
    fn granted(&self, key: &KeyId, waited: Duration) {
        for tally in &self.0 {
            tally.granted(key, waited);
        }
    }

    fn ended(&self, key: &KeyId, why: &str, held: Duration) {
        for tally in &self.0 {
            tally.ended(key, why, held);
        }
    }

    fn refused(&self, kind: &'static str, name: &str) {
        for tally in &self.0 {
            tally.refused(kind, name);
        }
    }
}
