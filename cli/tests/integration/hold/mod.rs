//! `tinystore hold` (cli/src/hold.rs, held.rs).

mod data;
mod lost;
mod more_ways;
