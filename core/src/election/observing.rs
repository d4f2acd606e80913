//! `Observing`: an [`Observer`](super::Observer) as a binding holds it, a
//! [`Following`](crate::following::Following) of the leader: the leader at
//! the moment of observing first, then every change in order, `None`
//! inside when nobody leads.

use super::leader::Leader;

/// An observer that can be awaited from any thread and closed from any
/// other (see [`Following`](crate::following::Following)).
pub type Observing = crate::following::Following<Option<Leader>>;
