//! The writing half of a connection's task: every line the client gets goes
//! out here, in the order it was queued.

use super::connection::Connection;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

/// Writes a connection's lines: those queued through the channel (while its
/// task waited) and those queued in its outbox (while its task handled an
/// event), channel first, so they go out in the order they were queued.
pub(super) struct Outgoing<W> {
    writer: BufWriter<W>,
    /// Lines queued while the connection's task waited; closed once the
    /// connection's shared half and every task holding it are gone.
    queued: mpsc::UnboundedReceiver<String>,
    /// The outbox's lines, swapped out to be written (kept to reuse its
    /// memory).
    spare: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> Outgoing<W> {
    /// Writes to `writer` what is queued on `queued` or in the outbox.
    pub(super) fn new(writer: W, queued: mpsc::UnboundedReceiver<String>) -> Outgoing<W> {
        Outgoing {
            writer: BufWriter::new(writer),
            queued,
            spare: Vec::new(),
        }
    }

    /// The next line queued through the channel; `None` once it closed.
    pub(super) async fn next_queued(&mut self) -> Option<String> {
        self.queued.recv().await
    }

    /// Writes one line (buffered until [`Outgoing::flush`]).
    pub(super) async fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        self.writer.write_all(line.as_bytes()).await?;
        self.writer.write_all(b"\n").await
    }

    /// Writes what was queued while the task handled an event, and ends the
    /// outbox's serving: the channel's lines came before `serving` was set
    /// (nothing joins them while it is), the outbox's after.
    pub(super) async fn write_queued(&mut self, conn: &Connection) -> std::io::Result<()> {
        let mut written = self.write_channel().await;
        {
            let mut outbox = conn.outbox();
            outbox.serving = false;
            std::mem::swap(&mut outbox.lines, &mut self.spare);
        }
        if written.is_ok() {
            written = self.writer.write_all(&self.spare).await;
        }
        self.spare.clear();
        written
    }

    /// Sends what is buffered to the client.
    pub(super) async fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush().await
    }

    /// Writes every line still to come through the channel, until it
    /// closes (the connection's shared half is dropped, and with it every
    /// sender), then flushes.
    pub(super) async fn finish(&mut self) -> std::io::Result<()> {
        while let Some(line) = self.queued.recv().await {
            self.write_line(&line).await?;
        }
        self.flush().await
    }

    /// Writes every line the channel holds now.
    async fn write_channel(&mut self) -> std::io::Result<()> {
        while let Ok(line) = self.queued.try_recv() {
            self.write_line(&line).await?;
        }
        Ok(())
    }
}
