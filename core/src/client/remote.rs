//! `Remote`: a store served by another process, as a `Backend`. It keeps one
//! connection and opens a new one for the next call when it broke.

use super::address::Address;
use super::link::{Conn, Link};
use super::table::{LeaseTerms, Table};
use super::ConnectOptions;
use crate::backend::Backend;
use crate::engine::{Grant, LeaseId, Request};
use crate::error::{Code, Error, Result};
use crate::status::Status;
use crate::wire::{Op, WireKey};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A store reached over a connection.
pub(crate) struct Remote {
    address: Address,
    options: ConnectOptions,
    table: Arc<Table>,
    generations: AtomicU64,
    current: tokio::sync::Mutex<Option<Conn>>,
    closed: Mutex<Option<Error>>,
}

impl Remote {
    /// Connects to `address` now, so that a wrong address or token fails
    /// here rather than at the first acquire.
    pub(crate) async fn connect(address: Address, options: ConnectOptions) -> Result<Remote> {
        let remote = Remote {
            address,
            options,
            table: Arc::new(Table::default()),
            generations: AtomicU64::new(0),
            current: tokio::sync::Mutex::new(None),
            closed: Mutex::new(None),
        };
        remote.link().await?;
        Ok(remote)
    }

    fn closed(&self) -> Option<Error> {
        self.closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The working connection, opening a new one if there is none.
    async fn link(&self) -> Result<Arc<Link>> {
        let mut current = self.current.lock().await;
        if let Some(err) = self.closed() {
            return Err(err);
        }
        if let Some(conn) = current.as_ref() {
            if conn.link.is_alive() {
                return Ok(conn.link.clone());
            }
        }
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let conn = Conn::open(&self.address, &self.options, generation, self.table.clone()).await?;
        let link = conn.link.clone();
        *current = Some(conn);
        Ok(link)
    }

    async fn grant(&self, request: Request, waits: bool) -> Result<Option<Grant>> {
        let link = self.link().await?;
        let key = &request.key;
        let (name, key_text) = (key.name().to_string(), WireKey::Text(key.key().to_string()));
        let limit = (!key.fenced()).then_some(request.limit);
        let ttl_ms = Some(request.ttl.as_millis() as u64);
        let op = if waits {
            Op::Acquire {
                name,
                key: key_text,
                limit,
                ttl_ms,
                wait_ms: None,
            }
        } else {
            Op::TryAcquire {
                name,
                key: key_text,
                limit,
                ttl_ms,
            }
        };
        let terms = LeaseTerms {
            ttl: request.ttl,
            renew: request.keepalive,
        };
        let answer = link.call(op, Some(terms)).await?;
        Ok(answer.grant)
    }
}

#[async_trait::async_trait]
impl Backend for Remote {
    async fn acquire(&self, request: Request) -> Result<Grant> {
        self.grant(request, true).await?.ok_or_else(|| {
            Error::new(
                Code::Internal,
                "the server answered an acquire without a lease",
            )
        })
    }

    async fn try_acquire(&self, request: Request) -> Result<Option<Grant>> {
        self.grant(request, false).await
    }

    async fn renew(&self, id: LeaseId) -> Result<()> {
        let (link, wire) = self.table.get(id)?;
        match link.call(Op::Renew { lease: wire }, None).await {
            Ok(_) => Ok(()),
            Err(err) => {
                let lost = Error::new(Code::LeaseLost, err.message());
                self.table.lost(id, lost.clone());
                Err(lost)
            }
        }
    }

    async fn release(&self, id: LeaseId) -> Result<()> {
        let (link, wire) = self.table.take(id)?;
        match link.call(Op::Release { lease: wire }, None).await {
            Ok(_) => Ok(()),
            Err(err) if err.code() == Code::LeaseLost => Err(err),
            // The connection broke: the server released the lease with it.
            Err(err) => Err(Error::new(Code::LeaseLost, err.message())),
        }
    }

    fn release_on_drop(&self, id: LeaseId) {
        self.table.forget_and_release(id);
    }

    async fn status(&self) -> Result<Status> {
        let answer = self.link().await?.call(Op::Status {}, None).await?;
        answer
            .reply
            .status
            .ok_or_else(|| Error::new(Code::Internal, "the server answered status without one"))
    }

    async fn backup(&self, dest: &Path) -> Result<()> {
        let dest = std::path::absolute(dest)
            .map_err(|e| Error::io(format!("cannot resolve {}", dest.display()), e))?;
        let path = dest.to_str().ok_or_else(|| {
            Error::new(
                Code::Invalid,
                format!("backup path {} is not UTF-8", dest.display()),
            )
        })?;
        let op = Op::Backup {
            path: path.to_string(),
        };
        self.link().await?.call(op, None).await.map(|_| ())
    }

    async fn close(&self) -> Result<()> {
        let mut current = self.current.lock().await;
        {
            let mut closed = self.closed.lock().unwrap_or_else(|p| p.into_inner());
            if closed.is_none() {
                *closed = Some(Error::new(
                    Code::Closed,
                    format!("the store at {} was closed", self.address),
                ));
            }
        }
        // Dropping the connection closes it; the server releases its leases.
        current.take();
        Ok(())
    }
}
