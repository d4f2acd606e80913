//! Reading frames: lines of at most `MAX_FRAME_BYTES`, from any async reader.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one read of a frame gave.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameRead {
    /// A whole line, newline (and a `\r` before it) removed.
    Line(Vec<u8>),
    /// A line longer than the limit, skipped up to and including its newline.
    TooLong(usize),
    /// The peer closed its side.
    End,
}

/// Reads the next line of at most `limit` bytes. An over-long line is read to
/// its end and dropped, so the stream stays in step; memory use stays under
/// `limit` plus the reader's buffer.
pub async fn read_frame<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<FrameRead> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            // End of stream: a partial last line without newline is dropped.
            return Ok(FrameRead::End);
        }
        let (chunk, found) = match memchr(buf) {
            Some(at) => (&buf[..at], Some(at)),
            None => (buf, None),
        };
        if skipped == 0 && line.len() + chunk.len() <= limit {
            line.extend_from_slice(chunk);
        } else {
            skipped += line.len() + chunk.len();
            line.clear();
        }
        let used = found.map_or(chunk.len(), |at| at + 1);
        reader.consume(used);
        if found.is_some() {
            if skipped > 0 {
                return Ok(FrameRead::TooLong(skipped));
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(FrameRead::Line(line));
        }
    }
}

fn memchr(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}
