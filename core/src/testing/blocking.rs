//! The test kit for blocking code and plain `#[test]` functions: the same
//! controls as [`super::TestStore`], each call waiting on a runtime of the
//! kit's own.

use super::Expirable;
use crate::error::Result;
use crate::names::Key;
use std::path::Path;
use std::time::Duration;

/// A blocking test store; see [`super::TestStore`]. Derefs to its
/// [`crate::blocking::Store`]. Dropping it (as when a test fails) stops
/// it and removes its directory.
pub struct TestStore {
    store: crate::blocking::Store,
    // Dropped after `store`: its runtime is the store's.
    kit: Option<super::TestStore>,
}

impl TestStore {
    /// An embedded test store; see [`super::TestStore::new`].
    pub fn new() -> Result<TestStore> {
        TestStore::start(false)
    }

    /// A test store served by this process; see
    /// [`super::TestStore::served`].
    pub fn served() -> Result<TestStore> {
        TestStore::start(true)
    }

    fn start(served: bool) -> Result<TestStore> {
        let rt = crate::blocking::runtime()?;
        let kit = rt.block_on(async {
            if served {
                super::TestStore::served().await
            } else {
                super::TestStore::new().await
            }
        })?;
        let store = crate::blocking::Store::from_parts(kit.store().clone(), rt);
        Ok(TestStore {
            store,
            kit: Some(kit),
        })
    }

    fn kit(&self) -> &super::TestStore {
        self.kit
            .as_ref()
            .expect("a test store is open until dropped")
    }

    /// The store.
    pub fn store(&self) -> &crate::blocking::Store {
        &self.store
    }

    /// Where other processes connect (`unix:PATH`), when served.
    pub fn address(&self) -> Option<&str> {
        self.kit().address()
    }

    /// The store's directory, removed when the kit is closed or dropped.
    pub fn dir(&self) -> &Path {
        self.kit().dir()
    }

    /// Moves the store's time forward `by`; see [`super::advance`](crate::testing::advance).
    pub fn advance(&self, by: Duration) -> Result<()> {
        self.store.block_on(self.kit().advance(by))
    }

    /// Ends `held` as if its holder had paused past its TTL; see
    /// [`super::expire`](crate::testing::expire).
    pub fn expire(&self, held: &impl Expirable) -> Result<()> {
        self.store.block_on(held.expire_now())
    }

    /// Ends every lease on `key` of the groups called `name`; see
    /// [`super::expire_key`](crate::testing::expire_key).
    pub fn expire_key(&self, name: &str, key: impl Key) -> Result<usize> {
        self.store.block_on(self.kit().expire_key(name, key))
    }

    /// Closes the store, stops its server when served, and removes the
    /// directory.
    pub fn close(mut self) -> Result<()> {
        let kit = self.kit.take().expect("a test store is open until closed");
        self.store.block_on(kit.close())
    }
}

impl Drop for TestStore {
    fn drop(&mut self) {
        let Some(kit) = self.kit.take() else { return };
        if tokio::runtime::Handle::try_current().is_ok() {
            // Dropped inside async code, where no runtime may block: the
            // directory still goes with `kit`.
            return;
        }
        // The server's tasks live on the store's runtime: stop it there.
        let _ = self.store.block_on(kit.close());
    }
}

impl std::ops::Deref for TestStore {
    type Target = crate::blocking::Store;

    fn deref(&self) -> &crate::blocking::Store {
        &self.store
    }
}

impl std::fmt::Debug for TestStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestStore")
            .field("dir", &self.dir())
            .field("address", &self.address())
            .finish()
    }
}
