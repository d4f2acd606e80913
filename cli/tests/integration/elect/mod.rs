//! `tinystore elect` and `leader` (cli/src/elect.rs, leader.rs), and
//! elections across processes.

mod commands;
mod processes;
