//! Helpers shared by the modules above.

pub mod raw;
pub mod served;
