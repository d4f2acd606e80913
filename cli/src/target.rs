//! TARGET: a store directory (opened, or connected to when it is served) or
//! a server address (`unix:PATH`, `tcp://HOST:PORT`, `tls://HOST:PORT`, or a store on etcd:
//! `etcd://HOST:PORT[,HOST:PORT...]/PREFIX`).

use std::path::{Path, PathBuf};
use tinystore::{Address, Code, ConnectOptions, Store, StoreOptions};

/// How a command reaches its store.
#[derive(clap::Args, Clone)]
pub struct Target {
    /// A store directory, or an address: unix:PATH, tcp://HOST:PORT,
    /// tls://HOST:PORT[?ca=FILE&cert=FILE&key=FILE] or etcd://HOST:PORT/PREFIX.
    pub target: String,
    /// A file holding the token of a TCP server (or set TINYSTORE_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
}

impl Target {
    /// Opens or connects to the store. A directory must hold a store: one
    /// that is missing or holds none is `invalid`, and is never made.
    pub async fn open(&self) -> tinystore::Result<Store> {
        if !self.is_address() {
            return Store::open_with(&self.target, StoreOptions::default().existing()).await;
        }
        let mut options = ConnectOptions::default();
        if let Some(file) = &self.token_file {
            options.token = Some(tinystore::server::read_token_file(file)?);
        } else if let Ok(token) = std::env::var("TINYSTORE_TOKEN") {
            options.token = Some(token);
        }
        Store::connect_with(&self.target, options).await
    }
}

impl Target {
    /// The store behind the target when a server answers for it: an
    /// address is connected to; a directory only when it is served. `None`
    /// for a directory nobody serves, which is left unopened.
    pub async fn open_served(&self) -> tinystore::Result<Option<Store>> {
        if self.is_address() {
            return self.open().await.map(Some);
        }
        let socket = Path::new(&self.target).join(tinystore::store_dir::SOCKET);
        match Store::connect_to(Address::Unix(socket), ConnectOptions::default()).await {
            Ok(store) => Ok(Some(store)),
            Err(err) if err.code() == Code::Unavailable => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn is_address(&self) -> bool {
        self.target.starts_with("unix:") || self.target.contains("://")
    }
}

/// A runtime for one command.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}
