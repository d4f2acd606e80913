//! What the tests of a store served in-process share: a server on a Unix
//! socket in a temporary directory, and a client whose connection goes
//! through a proxy that a test can cut.
#![allow(dead_code)]

use tinystore::server::{ServeOptions, Server};
use tinystore::Store;
use tokio::io::copy_bidirectional;
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// A store served in `dir/store`, with its address (`unix:...`).
pub async fn served() -> (tempfile::TempDir, Server, String) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path().join("store"), ServeOptions::default())
        .await
        .unwrap();
    let address = format!("unix:{}", server.socket_path().display());
    (dir, server, address)
}

/// A client of `server` whose connection goes through a proxy on
/// `dir/proxy.sock`: aborting the returned task cuts it, as a network or a
/// killed peer would, while the server goes on.
pub async fn through_proxy(dir: &std::path::Path, server: &Server) -> (JoinHandle<()>, Store) {
    let at = dir.join("proxy.sock");
    let listener = UnixListener::bind(&at).unwrap();
    let to = server.socket_path().to_path_buf();
    let proxy = tokio::spawn(async move {
        let mut conns = tokio::task::JoinSet::new();
        while let Ok((mut inbound, _)) = listener.accept().await {
            let to = to.clone();
            conns.spawn(async move {
                if let Ok(mut outbound) = UnixStream::connect(to).await {
                    let _ = copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    let store = Store::connect(&format!("unix:{}", at.display()))
        .await
        .unwrap();
    (proxy, store)
}
