//! The native half of the npm package `tinystore`: a napi-rs addon that
//! turns the core's async API into promises and JS classes. It converts
//! types and maps errors, nothing more; `lib/` is the JS layer above it.
//!
//! - [`store`]: `openStore`, `connectStore` and `NativeStore`.
//! - [`group`]: `NativeLocks` and `NativeSemaphore`, whose waits a
//!   [`cancel::Cancel`] gives up.
//! - [`lease`]: `NativeLease` (with a fence) and `NativePermit` (without).
//! - [`fence`]: the strict decimal parser and the 40-digit text form.
//! - [`error`] and [`options`]: how errors and options cross the boundary.
//! - [`now`]: calls that return their value at once when it is ready.

pub mod cancel;
pub mod error;
pub mod fence;
pub mod group;
pub mod lease;
pub mod now;
pub mod options;
pub mod store;
