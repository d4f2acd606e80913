//! The native half of the npm package `tinystore`: a napi-rs addon that
//! turns the core's async API into promises and JS classes. It converts
//! types and maps errors, nothing more; `lib/` is the JS layer above it.
//!
//! - [`store`]: `openStore`, `connectStore` and `NativeStore`.
//! - [`group`]: `NativeLocks` and `NativeSemaphore`; [`rw_locks`]:
//!   `NativeRwLocks`; [`several`]: `NativeLocks.acquiringAll`, several
//!   keys at once.
//! - [`acquiring`]: an acquire under way (the core's `Acquiring`), which
//!   JS waits for and gives up when its AbortSignal aborts.
//! - [`lease`]: `NativeLease` (with a fence) and `NativePermit` (without).
//! - [`election`]: `NativeElection`, `NativeLeadership`, `NativeObserver`.
//! - [`watch`]: `NativeWatcher`, a group's watch; [`following`]: what it
//!   and `NativeObserver` share.
//! - [`fence`]: the strict decimal parser and the 40-digit text form.
//! - [`guard`]: a core error as a value and the guards' names, for
//!   lib/guard.js and lib/s3.js; the core's guard machines, whose steps
//!   the JS layer takes on its users' own handles: [`guard_sql`] (the
//!   check, its steps as text), [`guard_object`] (S3's) and
//!   [`guard_redis`] (Redis's), their steps as objects: [`guard_step`];
//!   [`guard_dynamo`] (DynamoDB's) and [`guard_versioned`] (GCS's and
//!   Azure's), with steps of their own;
//!   [`guard_http`]: the HTTP helpers'.
//! - [`error`] and [`options`]: how errors and options cross the boundary;
//!   [`throw`]: `errorThrow`, any core error thrown on request.
//! - [`now`]: calls that return their value at once when it is ready.
//! - [`completion`]: the futures of the others, polled and settled on the JS
//!   thread, woken through one threadsafe function per thread.
//! - [`status`]: `NativeStore.status`, the core's `Status` as plain objects.
//! - [`testing`]: the test kit (`tinystore/testing`): `openTestStore`,
//!   `serveTestStore`, `NativeTestStore`, and the kit's controls on a
//!   store and a held lease, permit or leadership.
//! - [`serve`]: `serveStore` and `NativeServer`, and `cliMain`, the
//!   `tinystore` command.

pub mod acquiring;
pub mod completion;
pub mod election;
pub mod error;
pub mod fence;
pub mod following;
pub mod group;
pub mod guard;
pub mod guard_dynamo;
pub mod guard_http;
pub mod guard_object;
pub mod guard_redis;
pub mod guard_sql;
pub mod guard_step;
pub mod guard_versioned;
pub mod lease;
pub mod now;
pub mod options;
pub mod rw_locks;
pub mod serve;
pub mod several;
pub mod status;
pub mod store;
pub mod testing;
pub mod throw;
pub mod watch;
