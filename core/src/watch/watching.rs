//! `Watching`: a [`Watch`](super::Watch) as a binding holds it, a
//! [`Following`](crate::following::Following) of its events.

use super::event::WatchEvent;

/// A watch that can be awaited from any thread and closed from any other
/// (see [`Following`](crate::following::Following)).
pub type Watching = crate::following::Following<WatchEvent>;
