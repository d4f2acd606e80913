//! A key's line of waiters, first come first served. Most keys have nobody
//! waiting, so an empty line costs one null pointer.

use super::state::Waiter;
use std::collections::VecDeque;

/// The callers waiting for one key, in order of arrival.
#[derive(Default)]
// The box keeps an empty line at one pointer; a bare VecDeque is four.
#[allow(clippy::box_collection)]
pub(super) struct Line(Option<Box<VecDeque<Waiter>>>);

impl Line {
    /// Whether nobody waits.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many wait.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |line| line.len())
    }

    /// Puts a caller at the end of the line.
    pub fn push_back(&mut self, waiter: Waiter) {
        self.0
            .get_or_insert_with(Default::default)
            .push_back(waiter);
    }

    /// Takes the first caller in line.
    pub fn pop_front(&mut self) -> Option<Waiter> {
        let line = self.0.as_mut()?;
        let first = line.pop_front();
        if line.is_empty() {
            self.0 = None;
        }
        first
    }

    /// Takes the caller `id` out of the line, wherever it stands.
    pub fn remove(&mut self, id: u64) {
        if let Some(line) = self.0.as_mut() {
            line.retain(|w| w.id != id);
            if line.is_empty() {
                self.0 = None;
            }
        }
    }

    /// Takes everyone out of the line.
    pub fn take_all(&mut self) -> VecDeque<Waiter> {
        self.0.take().map(|line| *line).unwrap_or_default()
    }
}
