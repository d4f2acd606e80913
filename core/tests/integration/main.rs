//! tinystore's integration tests, one crate whose modules mirror core/src:
//! each module tests the part of the library with the same name, through
//! the public API only. Tests that need a server (etcd, PostgreSQL, S3,
//! Redis) sit behind the cargo feature of that part and skip themselves
//! when its server is absent, unless `TINYSTORE_REQUIRE_*` says it must be
//! there (the make targets set it).

/// The full name libtest gives the test function `$name` of the module this
/// is written in (its module path without the crate's name), for running
/// this binary again on that one test (`--exact`).
macro_rules! test_name {
    ($name:literal) => {
        concat!(module_path!(), "::", $name)
            .split_once("::")
            .unwrap()
            .1
    };
}

mod client;
mod disk;
mod election;
mod engine;
mod error;
#[cfg(feature = "etcd")]
mod etcd;
mod fence;
mod guard;
mod layout;
mod locks;
mod more_ways;
mod otel;
mod server;
mod support;
mod testing;
mod watch;
