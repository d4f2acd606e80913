//! The fenced-service example's Rust worker (examples/fenced-service):
//!
//!     fenced-service-worker --store ADDRESS --service URL --chat N --ttl-ms T
//!
//! Holds key N of lock group "summaries" (renew on) and prints `HELD
//! <fence>`; waits for a line on stdin; POSTs "summary by rust" to
//! `URL/chats/N/summary` with its fence in `Tinystore-Fence` (attached by
//! tinystore's client helper) and prints `POSTED <status> <fence>`; then
//! releases and prints `RELEASED ok` or `RELEASED <code>`, and exits 0.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;
use tinystore::guard::http::attach;
use tinystore::{Fence, Store};
use tokio::net::TcpStream;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

struct Args {
    store: String,
    service: String,
    chat: String,
    ttl_ms: u64,
}

fn args() -> Result<Args> {
    let mut flags = HashMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let name = flag
            .strip_prefix("--")
            .ok_or(format!("unexpected argument {flag:?}"))?;
        let value = it.next().ok_or(format!("--{name} needs a value"))?;
        flags.insert(name.to_string(), value);
    }
    let mut take = |k: &str| flags.remove(k).ok_or(format!("--{k} is required"));
    Ok(Args {
        store: take("store")?,
        service: take("service")?,
        chat: take("chat")?,
        ttl_ms: take("ttl-ms")?.parse()?,
    })
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// POSTs `body` to `url` (http://host:port/path) carrying `fence`; the
/// answer's status.
async fn post(url: &str, body: &str, fence: Fence) -> Result<u16> {
    let uri: http::Uri = url.parse()?;
    let authority = uri
        .authority()
        .ok_or(format!("{url:?} has no host"))?
        .clone();
    let port = authority.port_u16().unwrap_or(80);
    let stream = TcpStream::connect((authority.host(), port)).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let mut request = http::Request::post(uri.path())
        .header(http::header::HOST, authority.as_str())
        .header(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(body.to_string())))?;
    attach(&mut request, fence);
    let response = sender.send_request(request).await?;
    let status = response.status().as_u16();
    response.into_body().collect().await?;
    Ok(status)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let args = args()?;
    let store = Store::connect(&args.store).await?;
    let locks = store
        .locks("summaries")
        .ttl(Duration::from_millis(args.ttl_ms))
        .renew(true);
    let lease = locks.acquire(args.chat.as_str()).await?;
    let fence = lease.fence();
    say(&format!("HELD {fence}"));
    // Blocking stdin on a thread of its own: the runtime goes on renewing.
    tokio::task::spawn_blocking(|| std::io::stdin().read_line(&mut String::new())).await??;
    let url = format!(
        "{}/chats/{}/summary",
        args.service.trim_end_matches('/'),
        args.chat
    );
    let status = post(&url, "summary by rust", fence).await?;
    say(&format!("POSTED {status} {fence}"));
    match lease.release().await {
        Ok(()) => say("RELEASED ok"),
        Err(err) => say(&format!("RELEASED {}", err.code())),
    }
    Ok(())
}
