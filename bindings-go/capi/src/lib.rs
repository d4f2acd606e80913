//! A C ABI over the tinystore core, for the Go binding. cbindgen turns the
//! `extern "C"` items here into `bindings-go/include/tinystore.h`.
//!
//! A tour:
//!
//! - [`error`]: `TsError`, `TsCode`, and `call`, the guard every export
//!   runs its body in, so that no panic crosses the boundary.
//! - [`codes`]: the core's table of error codes (`ts_code_at`,
//!   `ts_code_name`) and the core's errors for closed or released handles.
//! - [`runtime`]: the one tokio runtime the core's futures run on.
//! - [`text`]: (pointer, length) arguments read as Rust text.
//! - [`store`]: `TsStore`, an open store.
//! - [`group`]: `TsGroup`, a `Locks` or `Semaphore` group or a side (read
//!   or write) of an `RwLocks` group, and `TsOptions`.
//! - [`acquiring`]: `TsAcquire`, the core's `Acquiring`: an acquire under
//!   way that can be waited on or given up (no lease leaks).
//! - [`several`]: `ts_group_acquire_all`, several keys of a lock group at
//!   once, every key or none.
//! - [`lease`]: `TsHeld`, a held lease, permit or leadership, and the end
//!   of a hold (the core's `EndHold::end_hold`).
//! - [`election`]: what an election adds to a group: `ts_election_leader`
//!   and `TsObserver` (the core's `Observing`).
//! - [`watch`]: `ts_group_watch` and `TsWatcher`, a group's watch (the
//!   core's `Watching`); [`following`]: what it and `TsObserver` share.
//! - [`completion`]: how a call that waits for a reply ends without blocking
//!   its caller's thread, and how a held lease tells its loss (the core's
//!   `on_lost`): a token in one queue behind a wake-up descriptor (the
//!   `tinystore-wakeup` crate: an eventfd on Linux, a pipe elsewhere).
//! - [`fence`]: `TsFence` and the core's fence parser and printer.
//! - [`guard`]: the guards' fixed texts: the SQL register's migration,
//!   the object-storage and HTTP names, the fence header's parser.
//! - [`guard_machine`]: `TsGuardMachine`, the core's guard protocols as
//!   machines that do no I/O (the SQL check, an object's guarded write and
//!   read): the Go side does each step's I/O on the caller's own driver.
//! - [`guard_redis`]: the Redis guard's machine (the core's `RedisCheck`):
//!   a guarded `SET`, `DEL`, `HSET` or the caller's own script.
//! - [`guard_dynamo`]: the DynamoDB guard's machine (the core's
//!   `DynamoCheck`): the register item's conditional put in the caller's
//!   own `TransactWriteItems`.
//! - [`guard_versioned`]: the guard on stores that compare versions (the
//!   core's `VersionedCheck`): a put on Google Cloud Storage or Azure Blob
//!   Storage made on the generation or ETag read.
//! - [`guard_step`]: a machine's step and verdict as C structs.
//! - [`guard_observed`]: what was observed of a step, and a driver's
//!   failure as it reports it, which the core classifies.
//! - [`status`]: `ts_store_status`, the core's `Status` as JSON text.
//! - [`serve`]: `TsServer`, a store served from inside the program.
//! - [`testing`]: the test kit: `TsTestStore`, a store made for a test
//!   (embedded or served), and `ts_testing_advance`, `ts_testing_expire`,
//!   `ts_testing_expire_key` on any store or held lease (the core's
//!   `tinystore::testing`, which refuses them on a store not made for
//!   tests).
//! - [`cli`]: `ts_cli_main`, the `tinystore` command line as a function.
//!
//! The C ABI converts types and maps errors; every semantic lives in the
//! core.

pub mod acquiring;
pub mod cli;
pub mod codes;
pub mod completion;
pub mod election;
pub mod error;
pub mod fence;
pub mod following;
pub mod group;
pub mod guard;
pub mod guard_dynamo;
pub mod guard_machine;
#[cfg(test)]
mod guard_machine_tests;
pub mod guard_observed;
pub mod guard_redis;
pub mod guard_step;
pub mod guard_versioned;
pub mod lease;
pub mod runtime;
pub mod serve;
pub mod several;
pub mod status;
pub mod store;
pub mod testing;
pub mod text;
pub mod watch;
