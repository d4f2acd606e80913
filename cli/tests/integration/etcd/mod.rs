//! The command on an etcd target (cli/src/target.rs): the cluster
//! `make test-etcd` starts; ignored without it.

mod clock;
pub mod support;
mod target;
