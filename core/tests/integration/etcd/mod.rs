//! The store on etcd (core/src/etcd), against the clusters `make test-etcd`
//! starts (core/tests/etcd_cluster.sh, etcd_netns.sh).

mod data;
mod elections;
mod failover;
mod locks;
mod lost_replies;
mod member_partitions;
mod more_ways;
mod partitions;
mod processes;
pub mod support;
mod waits;
mod watch;
