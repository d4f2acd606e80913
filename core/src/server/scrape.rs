//! `serve --metrics ADDR`: the metrics as Prometheus text on a listener of
//! their own (never on the lock ports), over a small HTTP/1.1 ([`super::http`])
//! that answers `GET /metrics` (and, with `--page`, the live page's paths,
//! [`super::page`]) and closes each connection after its answer. With
//! `--metrics-tls` it speaks HTTPS, with the TCP listener's certificate,
//! key and client CA (the same TLS rules as the lock port).

use super::http::{read_head, Reply, Request, MAX_REQUEST_BYTES};
use super::metrics::Metrics;
use super::page::Page;
use super::shutdown::Shutdown;
use crate::engine::Engine;
use crate::error::{Code, Error, Result};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;

/// Scrapes answered at once; more wait to be accepted.
const MAX_SCRAPES: usize = 16;
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

/// Answers scrapes until shutdown, over TLS when `tls` is given.
pub(super) fn spawn(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    metrics: Arc<Metrics>,
    engine: Arc<Engine>,
    page: Option<Arc<Page>>,
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
                        let (page, tls) = (page.clone(), tls.clone());
                        tokio::spawn(async move {
                            let _ = serve(stream, tls, &metrics, &engine, page.as_deref()).await;
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

/// Makes the TLS handshake when asked (within the request's deadline),
/// then answers one request.
async fn serve(
    stream: TcpStream,
    tls: Option<TlsAcceptor>,
    metrics: &Metrics,
    engine: &Engine,
    page: Option<&Page>,
) -> std::io::Result<()> {
    match tls {
        None => answer(stream, metrics, engine, page).await,
        Some(tls) => match tokio::time::timeout(REQUEST_TIMEOUT, tls.accept(stream)).await {
            Ok(Ok(stream)) => answer(stream, metrics, engine, page).await,
            Ok(Err(e)) => Err(e),
            Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
        },
    }
}

/// Reads one request and answers it.
async fn answer<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    metrics: &Metrics,
    engine: &Engine,
    page: Option<&Page>,
) -> std::io::Result<()> {
    let head = tokio::time::timeout(REQUEST_TIMEOUT, read_head(&mut stream)).await;
    let reply = match head {
        Err(_) => Reply::text("408 Request Timeout", "no request in time\n"),
        Ok(Err(e)) => return Err(e),
        Ok(Ok(None)) => Reply::text(
            "431 Request Header Fields Too Large",
            format!("a request is at most {MAX_REQUEST_BYTES} bytes\n"),
        ),
        Ok(Ok(Some(head))) => match Request::parse(&head) {
            None => Reply::text("400 Bad Request", "no request line\n"),
            Some(request) => route(&request, metrics, engine, page),
        },
    };
    reply.send(&mut stream).await
}

/// The reply to `request`: the metrics at `/metrics`, the live page's
/// paths when it is served, `404` for any other path, `405` for another
/// method than GET.
fn route(request: &Request, metrics: &Metrics, engine: &Engine, page: Option<&Page>) -> Reply {
    match (request.method.as_str(), request.path.as_str(), page) {
        ("GET", "/metrics", _) => {
            Reply::new("200 OK", CONTENT_TYPE, metrics.render(engine.totals()))
        }
        (_, "/metrics", _) => {
            Reply::text("405 Method Not Allowed", "only GET /metrics is served\n")
                .with("Allow", "GET")
        }
        (_, path, Some(page)) if Page::serves(path) => page.answer(request, engine),
        (_, _, Some(_)) => Reply::text(
            "404 Not Found",
            "the metrics are at /metrics, the live page at /\n",
        ),
        (_, _, None) => Reply::text("404 Not Found", "the metrics are at /metrics\n"),
    }
}
