//! The source tree's own rules: docs/architecture.md's map of core/src,
//! and no circles between its modules.

mod architecture_map;
mod no_import_circles;
