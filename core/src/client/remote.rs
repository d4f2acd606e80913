//! `Remote`: a store served by another process, as a `Backend`. It keeps one
//! connection and opens a new one for the next call when it broke.

use super::address::Address;
use super::connect_options::ConnectOptions;
use super::link::{Link, OpenLink};
use super::renewer;
use super::table::{LeaseTerms, RemoteLeases};
use crate::backend::Backend;
use crate::election::pushed;
use crate::election::{Leader, Observer};
use crate::error::{Code, Error, Result};
use crate::status::{Status, StatusPage};
use crate::vocab::{Ask, KeyId, Request};
use crate::vocab::{Grant, LeaseId};
use crate::wire::{Op, WireKey, WireLeader, WireMode};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// How much longer than an acquire's or a campaign's `wait` the client
/// waits for the server, which ends the wait itself, to say so.
const WAIT_BACKSTOP: std::time::Duration = std::time::Duration::from_secs(5);

/// A store reached over a connection.
pub(crate) struct Remote {
    address: Address,
    options: ConnectOptions,
    table: Arc<RemoteLeases<Link>>,
    generations: AtomicU64,
    current: tokio::sync::Mutex<Option<OpenLink>>,
    closed: Mutex<Option<Error>>,
    #[cfg(feature = "otel")]
    tracer: crate::otel::StoreTracer,
}

impl Remote {
    /// Connects to `address` now, so that a wrong address or token fails
    /// here rather than at the first acquire.
    pub(crate) async fn connect(address: Address, options: ConnectOptions) -> Result<Remote> {
        let remote = Remote {
            address,
            options,
            table: Arc::new(RemoteLeases::new(renewer::spawn)),
            generations: AtomicU64::new(0),
            current: tokio::sync::Mutex::new(None),
            closed: Mutex::new(None),
            #[cfg(feature = "otel")]
            tracer: crate::otel::StoreTracer::global(),
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
        let conn =
            OpenLink::open(&self.address, &self.options, generation, self.table.clone()).await?;
        let link = conn.link.clone();
        *current = Some(conn);
        Ok(link)
    }

    async fn grant(&self, request: Request, waits: bool) -> Result<Option<Grant>> {
        let link = self.link().await?;
        let key = request.key();
        let (name, key_text) = (key.name().to_string(), WireKey::Text(key.key().to_string()));
        let (limit, mode, weight) = match request.ask() {
            Ask::Lock => (None, None, None),
            Ask::Permit { limit } => (
                Some(limit),
                None,
                Some(request.weight()).filter(|w| *w != 1),
            ),
            Ask::Read => (None, Some(WireMode::Read), None),
            Ask::Write => (None, Some(WireMode::Write), None),
        };
        let ttl_ms = Some(u64::from(request.ttl_ms()));
        // At most 30 days (checked), so it fits.
        let wait_ms = request.wait().map(|w| w.as_millis() as u64);
        let max_hold_ms = request.max_hold_ms();
        // The data the request was made with: the caller's, or this
        // process's HOST:PID, filled in here, never by the server.
        let data = request.data().map(str::to_string);
        let op = if key.is_election() {
            Op::Campaign {
                name,
                value: request.value().unwrap_or_default().to_string(),
                ttl_ms,
                wait_ms,
                max_hold_ms,
            }
        } else if waits {
            Op::Acquire {
                name,
                key: key_text,
                limit,
                mode,
                weight,
                ttl_ms,
                wait_ms,
                max_hold_ms,
                data,
            }
        } else {
            Op::TryAcquire {
                name,
                key: key_text,
                limit,
                mode,
                weight,
                ttl_ms,
                max_hold_ms,
                data,
            }
        };
        let terms = LeaseTerms {
            ttl: request.ttl(),
            renew: request.renewing(),
        };
        let answer = link.call(op, Some(terms)).await?;
        Ok(answer.grant)
    }
}

#[async_trait::async_trait]
impl Backend for Remote {
    #[cfg(feature = "otel")]
    fn tracer(&self) -> &crate::otel::StoreTracer {
        &self.tracer
    }

    /// The server ends the wait (`wait_ms`) where the queue is, with the
    /// same `timeout` as a store in this process, so a request whose wait
    /// ran out never held. The client's own timer, a little later, only
    /// guards against a server that stopped answering.
    async fn acquire(&self, request: Request) -> Result<Grant> {
        let backstop = request
            .clone()
            .with_wait(request.wait().map(|w| w + WAIT_BACKSTOP));
        let waiting = self.grant(request, true);
        backstop.within_wait(waiting).await?.ok_or_else(|| {
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
        let taken = self.table.take(id);
        // After close, as on an embedded store: the store's `closed` (its
        // connection is gone, and the server released the lease with it).
        if let Some(err) = self.closed() {
            return Err(err);
        }
        let (link, wire) = taken?;
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

    /// A one-way `refused_write` on the connection open now; dropped when
    /// there is none, or another caller is opening one.
    fn refused(&self, key: &KeyId, resource: &str) {
        let Ok(current) = self.current.try_lock() else {
            return;
        };
        if let Some(conn) = current.as_ref() {
            conn.link.send_oneway(Op::RefusedWrite {
                kind: key.kind().to_string(),
                name: key.name().to_string(),
                resource: resource.to_string(),
            });
        }
    }

    async fn status(&self, page: StatusPage) -> Result<Status> {
        let op = Op::Status {
            limit: Some(u32::try_from(page.limit).unwrap_or(u32::MAX)),
            offset: (page.offset > 0).then_some(page.offset as u64),
        };
        let answer = self.link().await?.call(op, None).await?;
        answer
            .reply
            .status
            .map(|status| *status)
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

    async fn leader(&self, name: &str) -> Result<Option<Leader>> {
        let op = Op::Leader {
            name: name.to_string(),
        };
        let answer = self.link().await?.call(op, None).await?;
        leader_of(answer.reply.leader, name)
    }

    async fn watch(
        &self,
        kind: crate::vocab::GroupKind,
        name: &str,
        key: Option<String>,
    ) -> Result<crate::watch::Watch> {
        let link = self.link().await?;
        let op = Op::Watch {
            kind: kind.label().to_string(),
            name: name.to_string(),
            key: key.as_deref().map(Into::into),
        };
        // The sink is made before the call, so that no event can come
        // before it is there; the watch learns its id from the reply.
        let id_slot: Arc<std::sync::OnceLock<(u64, std::sync::Weak<Link>)>> = Arc::default();
        let stop_slot = id_slot.clone();
        let stop = move || {
            if let Some((id, link)) = stop_slot.get() {
                if let Some(link) = link.upgrade() {
                    link.stop_observing(*id);
                }
            }
        };
        // A server that takes `watch_pause` is asked to stop sending while
        // the reader has no room, and to go on once it made some.
        let (sink, watch) = if link.pauses {
            let resume_slot = id_slot.clone();
            crate::watch::buffer_pausing(stop, move || {
                if let Some((id, link)) = resume_slot.get() {
                    if let Some(link) = link.upgrade() {
                        link.resume_watch(*id);
                    }
                }
            })
        } else {
            crate::watch::buffer(stop)
        };
        let answer = link.watch(op, sink).await?;
        let id = answer
            .observing
            .ok_or_else(|| Error::new(Code::Internal, "the server answered watch without an id"))?;
        // Weak: a kept watch must not keep its connection open.
        let _ = id_slot.set((id, Arc::downgrade(&link)));
        Ok(watch)
    }

    async fn observe(&self, name: &str) -> Result<Observer> {
        let link = self.link().await?;
        let (route, inbox) = pushed::route();
        let answer = link.observe(name, route).await?;
        let first = leader_of(answer.reply.leader, name)?;
        let id = answer.observing.ok_or_else(|| {
            Error::new(Code::Internal, "the server answered observe without an id")
        })?;
        // Weak: a kept observer must not keep its connection open.
        let link = Arc::downgrade(&link);
        let stop = move || {
            if let Some(link) = link.upgrade() {
                link.stop_observing(id);
            }
        };
        Ok(pushed::observer(name, first, inbox, stop))
    }

    async fn close(&self) -> Result<()> {
        let mut current = self.current.lock().await;
        let reason = {
            let mut closed = self.closed.lock().unwrap_or_else(|p| p.into_inner());
            closed
                .get_or_insert_with(|| Error::store_closed(&self.address))
                .clone()
        };
        // Its holders learn their leases ended with the store (`closed`),
        // not with a broken connection. Dropping the connection closes it;
        // the server releases its leases.
        if let Some(conn) = current.take() {
            self.table.lost_generation(conn.link.generation, reason);
        }
        Ok(())
    }

    async fn advance(&self, by: std::time::Duration) -> Result<()> {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        let op = Op::Advance { ms };
        self.link().await?.call(op, None).await.map(|_| ())
    }

    async fn expire(&self, id: LeaseId) -> Result<()> {
        let (link, wire) = self.table.get(id)?;
        link.call(Op::Expire { lease: wire }, None)
            .await
            .map(|_| ())
    }

    async fn expire_key(&self, name: &str, key: &str) -> Result<usize> {
        let op = Op::ExpireKey {
            name: name.to_string(),
            key: WireKey::Text(key.to_string()),
        };
        let answer = self.link().await?.call(op, None).await?;
        Ok(answer.reply.expired.unwrap_or(0) as usize)
    }
}

/// The leader a `leader` or `observe` reply gives for election `name`.
fn leader_of(given: Option<Option<WireLeader>>, name: &str) -> Result<Option<Leader>> {
    match given {
        Some(leader) => Ok(leader.map(Into::into)),
        None => Err(Error::new(
            Code::Internal,
            format!("the server answered about election {name} without its leader"),
        )),
    }
}
