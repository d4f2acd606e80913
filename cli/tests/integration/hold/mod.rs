//! `tinystore hold` (cli/src/hold.rs, held.rs).

mod lost;
mod more_ways;
