//! For fuzz/ only (the cargo feature `fuzzing`): the wire's request
//! decoders and frame reader, so that fuzz targets can feed them any bytes
//! and check that the quick and the careful decoder agree. Not part of the
//! API.

pub use crate::wire::{
    decode_careful, decode_quick, decode_request, FrameRead, FrameReader, ServerFrame,
};
