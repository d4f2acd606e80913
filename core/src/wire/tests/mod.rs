//! The wire's tests: frames decoded and encoded by example, and properties
//! of the decoder over any bytes.

mod decoder_props;
mod frames;
mod quick_path;
