//! The server (core/src/server) in this process.

mod last_words;
mod page;
