//! The command's integration tests, one crate whose modules mirror
//! cli/src: each runs the built `tinystore` binary as a user would (real
//! processes, sockets, signals and store directories). The etcd module
//! needs the cluster `make test-etcd` starts; its tests are ignored
//! otherwise.

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

mod demo;
mod deploy;
mod elect;
mod etcd;
mod help;
mod hold;
mod serve;
mod status;
mod store;
mod support;
mod vectors;
mod watch;
