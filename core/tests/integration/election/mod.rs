//! Elections (core/src/election), in this process and over a connection.

mod embedded;
mod remote;
