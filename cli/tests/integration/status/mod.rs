//! `tinystore status` (cli/src/status.rs, human.rs, table.rs).

mod human;
mod piped;
mod unserved;
