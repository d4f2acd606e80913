//! A connection to a server speaking the wire by hand, line by line, so
//! that nothing in a client can stand in for a missing or a wrong line.
#![allow(dead_code)]

use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

/// A connection speaking the wire by hand.
pub struct Raw {
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    writer: tokio::net::unix::OwnedWriteHalf,
}

impl Raw {
    /// Connects to the Unix socket `socket` and says hello.
    pub async fn greeted(socket: &std::path::Path) -> Raw {
        let mut raw = Raw::connected(socket).await;
        let hello = raw.ask(r#"{"op":"hello","version":1}"#).await;
        assert_eq!(hello["ok"], true, "{hello}");
        raw
    }

    /// Connects to the Unix socket `socket`, saying nothing yet.
    pub async fn connected(socket: &std::path::Path) -> Raw {
        let (read, writer) = UnixStream::connect(socket).await.unwrap().into_split();
        Raw {
            reader: BufReader::new(read),
            writer,
        }
    }

    /// Sends `line` (a JSON frame without its newline).
    pub async fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    /// The next line, or `None` at the end of the stream (within 10 s).
    pub async fn next(&mut self) -> Option<Value> {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(10), self.reader.read_line(&mut line));
        match read.await.expect("the server said nothing for 10 s") {
            Ok(0) => None,
            Ok(_) => Some(serde_json::from_str(&line).unwrap()),
            Err(e) => panic!("reading from the server: {e}"),
        }
    }

    /// The next line, which must come.
    pub async fn line(&mut self) -> Value {
        self.next()
            .await
            .expect("a line, not the end of the stream")
    }

    /// Sends `line` and reads the next line.
    pub async fn ask(&mut self, line: &str) -> Value {
        self.send(line).await;
        self.line().await
    }
}
