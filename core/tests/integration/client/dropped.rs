//! A call dropped while its request is being written (a timeout, a
//! `select!`) leaves the connection whole: a request goes out entire or not
//! at all, so the next one on the connection is read as itself.
//!
//! The client reaches a real server on TLS (certificates made by
//! tests/tls/make-certs.sh with openssl) through a TCP proxy with a small
//! window that stops reading for a while, as a busy server or a slow
//! network does, until the connection's buffers are full. Tries to acquire
//! made meanwhile, one at a time, give up after a millisecond, some while
//! their requests wait to be written; each is over 8 KiB on the wire (data
//! and key of control characters, six bytes each). A try is not called off
//! on the server, so the next request after the last of them is the plain
//! acquire that follows once the proxy reads again: it and its release must
//! be answered.

use std::path::{Path, PathBuf};
use std::time::Duration;
use tinystore::server::{ServeOptions, Server, TcpOptions, TlsOptions};
use tinystore::{ConnectOptions, Store};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;

const TRIES: usize = 800;
const TOKEN: &str = "sixteen-bytes-or-more-of-token";

/// A proxy on loopback TCP to `to` for one connection, which copies the
/// client's bytes only while `reading` says true; its `HOST:PORT`.
async fn pausing_proxy(to: String, reading: watch::Receiver<bool>) -> String {
    // A small window: the client's buffers fill after a few requests.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let at = format!("localhost:{}", listener.local_addr().unwrap().port());
    tokio::spawn(async move {
        let (inbound, _) = listener.accept().await.unwrap();
        let outbound = TcpStream::connect(to).await.unwrap();
        let (mut from_client, mut to_client) = inbound.into_split();
        let (mut from_server, mut to_server) = outbound.into_split();
        tokio::spawn(async move {
            let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        });
        let mut reading = reading;
        let mut chunk = vec![0; 4096];
        loop {
            if reading.wait_for(|on| *on).await.is_err() {
                return;
            }
            match from_client.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if to_server.write_all(&chunk[..n]).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    at
}

/// A CA and a server certificate for localhost in `dir`.
fn certificates(dir: &Path) -> (PathBuf, TlsOptions) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tls/make-certs.sh");
    let made = std::process::Command::new("sh")
        .arg(script)
        .arg(dir)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let tls = TlsOptions {
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
        client_ca: None,
    };
    (dir.join("ca.pem"), tls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_dropped_mid_write_leave_the_connection_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, tls) = certificates(&dir.path().join("certs"));
    let options = ServeOptions {
        tcp: Some(TcpOptions {
            addr: "127.0.0.1:0".into(),
            token: TOKEN.into(),
            tls: Some(tls),
        }),
        ..ServeOptions::default()
    };
    let server = Server::start(dir.path().join("store"), options)
        .await
        .unwrap();
    let (reading, paused) = watch::channel(true);
    let proxy = pausing_proxy(server.tcp_addr().unwrap().to_string(), paused).await;
    let address = format!("tls://{proxy}?ca={}", ca.display());
    let store = Store::connect_with(&address, ConnectOptions::default().token(TOKEN))
        .await
        .unwrap();
    let held = store
        .locks("busy")
        .data("\u{1}".repeat(tinystore::MAX_DATA_BYTES));
    let locks = store.locks("after");
    for round in 0..2 {
        reading.send_replace(false);
        // Each try gives up soon: written at once while there is room, then
        // given up while its request waits to be written.
        for n in 0..TRIES {
            let key = format!(
                "{round}-{n}-{}",
                "\u{1}".repeat(tinystore::MAX_KEY_BYTES - 20)
            );
            let _ = tokio::time::timeout(Duration::from_millis(1), held.try_acquire(key)).await;
        }
        reading.send_replace(true);
        // The connection still speaks: an acquire is granted and released.
        let lease = tokio::time::timeout(Duration::from_secs(20), locks.acquire(round))
            .await
            .unwrap_or_else(|_| panic!("round {round}: no answer to an acquire in 20 s"))
            .unwrap();
        assert!(lease.is_held());
        tokio::time::timeout(Duration::from_secs(20), lease.release())
            .await
            .unwrap_or_else(|_| panic!("round {round}: no answer to a release in 20 s"))
            .unwrap();
    }
    drop(store);
    server.shutdown().await.unwrap();
}
