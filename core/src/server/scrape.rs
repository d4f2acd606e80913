//! `serve --metrics ADDR`: the metrics as Prometheus text on a listener of
//! their own (never on the lock ports), over a small HTTP/1.1 that answers
//! `GET /metrics` and closes each connection after its answer.

use super::metrics::Metrics;
use super::shutdown::Shutdown;
use crate::engine::Engine;
use crate::error::{Code, Error, Result};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Scrapes answered at once; more wait to be accepted.
const MAX_SCRAPES: usize = 16;
/// The longest request read; a longer one gets `431`.
const MAX_REQUEST_BYTES: usize = 8 * 1024;
/// How long a scraper has to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// The content type of the text prometheus-client writes.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Binds the metrics listener on `addr` (`HOST:PORT`).
pub(super) async fn bind(addr: &str) -> Result<TcpListener> {
    TcpListener::bind(addr).await.map_err(|e| {
        Error::new(
            Code::Io,
            format!("cannot listen for metrics on {addr:?}: {e}"),
        )
    })
}

/// Answers scrapes until shutdown.
pub(super) fn spawn(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    engine: Arc<Engine>,
    mut shutdown: Shutdown,
) {
    let room = Arc::new(Semaphore::new(MAX_SCRAPES));
    tokio::spawn(async move {
        loop {
            let permit = tokio::select! {
                permit = room.clone().acquire_owned() => permit,
                _ = shutdown.recv() => return,
            };
            let Ok(permit) = permit else { return };
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let (metrics, engine) = (metrics.clone(), engine.clone());
                        tokio::spawn(async move {
                            let _ = answer(stream, &metrics, &engine).await;
                            drop(permit);
                        });
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                },
                _ = shutdown.recv() => return,
            }
        }
    });
}

/// Reads one request and answers it.
async fn answer(mut stream: TcpStream, metrics: &Metrics, engine: &Engine) -> std::io::Result<()> {
    let head = tokio::time::timeout(REQUEST_TIMEOUT, read_head(&mut stream)).await;
    let (status, content_type, body) = match head {
        Err(_) => (
            "408 Request Timeout",
            "text/plain",
            "no request in time\n".to_string(),
        ),
        Ok(Err(e)) => return Err(e),
        Ok(Ok(None)) => (
            "431 Request Header Fields Too Large",
            "text/plain",
            format!("a request is at most {MAX_REQUEST_BYTES} bytes\n"),
        ),
        Ok(Ok(Some(head))) => {
            let mut words = head.split_whitespace().skip(1);
            let path = words.next().map(|p| p.split('?').next().unwrap_or(p));
            match (head.split_whitespace().next(), path) {
                (Some("GET"), Some("/metrics")) => {
                    ("200 OK", CONTENT_TYPE, metrics.render(engine.totals()))
                }
                (Some("GET"), _) => (
                    "404 Not Found",
                    "text/plain",
                    "the metrics are at /metrics\n".to_string(),
                ),
                _ => (
                    "405 Method Not Allowed",
                    "text/plain",
                    "only GET /metrics is served\n".to_string(),
                ),
            }
        }
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    stream.shutdown().await
}

/// The request's head (up to the blank line); `None` when it is too long.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        if head.len() > MAX_REQUEST_BYTES {
            return Ok(None);
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(Some(String::from_utf8_lossy(&head).into_owned()))
}
