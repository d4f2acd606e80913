//! Fences (core/src/fence.rs): the shared vectors and the user's page.

mod page;
mod vectors;
