//! The lock engine (core/src/engine) as seen from outside: its audit log.

mod audit;
