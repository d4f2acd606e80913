//! Reading frames: lines of at most a given length, from any async reader.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one read of a frame gave.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameRead {
    /// A whole line, newline (and a `\r` before it) removed.
    Line(Vec<u8>),
    /// A line longer than the limit: skipped up to and including its
    /// newline, or for a reader made with [`FrameReader::stopping`], the
    /// bytes read of it when it went over (the stream is then out of step).
    TooLong(usize),
    /// The peer closed its side.
    End,
}

/// Reads lines of at most `limit` bytes. An over-long line is read to its
/// end and dropped, so the stream stays in step; memory use stays under
/// `limit` plus the reader's buffer. [`FrameReader::next`] is cancel safe:
/// a partial line is kept for the next call, so it can sit in `select!`.
#[derive(Debug)]
pub struct FrameReader {
    limit: usize,
    line: Vec<u8>,
    skipped: usize,
    /// Whether an over-long line is reported as soon as it goes over,
    /// rather than read to its end.
    stop: bool,
}

impl FrameReader {
    /// A reader of lines of at most `limit` bytes.
    pub fn new(limit: usize) -> FrameReader {
        FrameReader {
            limit,
            line: Vec::new(),
            skipped: 0,
            stop: false,
        }
    }

    /// A reader of lines of at most `limit` bytes that reports an over-long
    /// line as soon as it goes over, without reading on to its newline: for
    /// a peer that is closed when it sends one.
    pub fn stopping(limit: usize) -> FrameReader {
        FrameReader {
            stop: true,
            ..FrameReader::new(limit)
        }
    }

    /// From now on, lines of at most `limit` bytes, over-long ones skipped
    /// to their end. A partial line read so far is kept.
    pub fn relax(&mut self, limit: usize) {
        self.limit = limit;
        self.stop = false;
    }

    /// The next frame from `reader`.
    pub async fn next<R: AsyncBufRead + Unpin>(
        &mut self,
        reader: &mut R,
    ) -> std::io::Result<FrameRead> {
        loop {
            let buf = reader.fill_buf().await?;
            if buf.is_empty() {
                // End of stream: a partial last line without newline is dropped.
                return Ok(FrameRead::End);
            }
            let found = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..found.unwrap_or(buf.len())];
            if self.skipped == 0 && self.line.len() + chunk.len() <= self.limit {
                self.line.extend_from_slice(chunk);
            } else {
                self.skipped += self.line.len() + chunk.len();
                self.line.clear();
                if self.stop {
                    return Ok(FrameRead::TooLong(std::mem::take(&mut self.skipped)));
                }
            }
            let used = found.map_or(chunk.len(), |at| at + 1);
            reader.consume(used);
            if found.is_some() {
                if self.skipped > 0 {
                    return Ok(FrameRead::TooLong(std::mem::take(&mut self.skipped)));
                }
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(FrameRead::Line(line));
            }
        }
    }
}
