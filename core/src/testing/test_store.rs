//! `TestStore`: a store in a directory of its own, made for a test, whose
//! time the test controls; embedded, or served in this process.

use super::Expirable;
use crate::error::{Error, Result};
use crate::names::Key;
use crate::server::{ServeOptions, Server};
use crate::store::Store;
use crate::store_options::StoreOptions;
use std::path::Path;
use std::time::Duration;
use tempfile::TempDir;

/// A test store: a new store in a temporary directory, with the kit's
/// controls allowed. Derefs to its [`Store`]. [`TestStore::close`] (or
/// dropping it, as when a test fails) stops it and removes its directory.
pub struct TestStore {
    store: Store,
    server: Option<Server>,
    address: Option<String>,
    // Last: removed once the store and server above are gone.
    dir: TempDir,
}

impl TestStore {
    /// An embedded test store: this process owns it.
    pub async fn new() -> Result<TestStore> {
        let dir = temp_dir()?;
        let store = Store::open_with(dir.path(), StoreOptions::default().testing()).await?;
        Ok(TestStore {
            store,
            server: None,
            address: None,
            dir,
        })
    }

    /// A served test store: a server of this process serves it on its Unix
    /// socket, as `tinystore serve --testing` would, and [`store`] is
    /// connected to it, so a lease's loss travels the wire as in
    /// production. Other processes reach it at [`address`].
    ///
    /// [`store`]: TestStore::store
    /// [`address`]: TestStore::address
    pub async fn served() -> Result<TestStore> {
        let dir = temp_dir()?;
        let options = ServeOptions {
            store: StoreOptions::default().testing(),
            ..ServeOptions::default()
        };
        let server = Server::start(dir.path(), options).await?;
        let address = format!("unix:{}", server.socket_path().display());
        let store = Store::connect(&address).await?;
        Ok(TestStore {
            store,
            server: Some(server),
            address: Some(address),
            dir,
        })
    }

    /// The store: acquire, campaign and read status through it.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where other processes connect (`unix:PATH`), when served.
    pub fn address(&self) -> Option<&str> {
        self.address.as_deref()
    }

    /// The store's directory, removed when the kit is closed or dropped.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Moves the store's time forward `by`; see [`super::advance`](crate::testing::advance).
    pub async fn advance(&self, by: Duration) -> Result<()> {
        super::controls::advance(&self.store, by).await
    }

    /// Ends `held` as if its holder had paused past its TTL; see
    /// [`super::expire`](crate::testing::expire).
    pub async fn expire(&self, held: &impl Expirable) -> Result<()> {
        super::controls::expire(held).await
    }

    /// Ends every lease on `key` of the groups called `name`; see
    /// [`super::expire_key`](crate::testing::expire_key).
    pub async fn expire_key(&self, name: &str, key: impl Key) -> Result<usize> {
        super::controls::expire_key(&self.store, name, key).await
    }

    /// Closes the store (holders are told, waiters fail with `closed`),
    /// stops the server when served, and removes the directory.
    pub async fn close(self) -> Result<()> {
        let closed = self.store.close().await;
        let stopped = match self.server {
            Some(server) => server.shutdown().await,
            None => Ok(()),
        };
        let removed = self
            .dir
            .close()
            .map_err(|e| Error::io("cannot remove the test store's directory", e));
        closed.and(stopped).and(removed)
    }
}

impl std::ops::Deref for TestStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl std::fmt::Debug for TestStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestStore")
            .field("dir", &self.dir.path())
            .field("address", &self.address)
            .finish()
    }
}

/// A new private directory for a test store, under the system's temporary
/// directory.
fn temp_dir() -> Result<TempDir> {
    tempfile::Builder::new()
        .prefix("tinystore-test-")
        .tempdir()
        .map_err(|e| Error::io("cannot make a directory for a test store", e))
}
