//! What a hold returns, on real stores: the body's own error first; else,
//! when the lease was lost before the body ended, why (`closed` when its
//! store was closed, or its server shut down and so closed it; `lease_lost`
//! when it ran out or its connection broke); else the body's value. And `lost_reason`, `release` and
//! `end_hold`, which give the bindings the same answers.

use crate::support::served::through_proxy;
use std::time::Duration;
use tinystore::binding::{hold_outcome, EndHold};
use tinystore::server::Server;
use tinystore::{Code, Error, Options, Store};
use tokio::task::JoinHandle;

/// The body's own error, a stand-in for an application's.
#[derive(Debug, PartialEq)]
enum AppError {
    Body,
    Store(Code),
}

impl From<Error> for AppError {
    fn from(err: Error) -> AppError {
        AppError::Store(err.code())
    }
}

/// What happens to the lease while the body runs.
#[derive(Debug, Clone, Copy)]
enum During {
    Kept,
    RanOut,
    StoreClosed,
    ServerShutDown,
    ConnectionBroke,
    ReleasedInBody,
}

/// A short TTL that is not renewed, so that a lease can run out.
fn short() -> Options {
    Options {
        ttl: Some(Duration::from_millis(30)),
        renew: Some(false),
        ..Options::default()
    }
}

/// Runs a hold whose body meets `during`, then returns `Ok(7)` or fails
/// with `AppError::Body` as `body_ok` says. `served` is the server of
/// `store` and the proxy its connection goes through, when it is remote.
async fn hold(
    store: &Store,
    served: Option<(Server, JoinHandle<()>)>,
    during: During,
    body_ok: bool,
) -> Result<u32, AppError> {
    let locks = store.locks("outcome");
    let (mut server, proxy) = served.unzip();
    locks
        .hold_with("k", short(), async |lease| {
            match during {
                During::Kept => {}
                During::RanOut => {
                    let reason = lease.lost().await;
                    assert_eq!(reason.code(), Code::LeaseLost, "{reason}");
                }
                During::StoreClosed => {
                    store.close().await.unwrap();
                    let reason = lease.lost().await;
                    assert_eq!(reason.code(), Code::Closed, "{reason}");
                    assert_eq!(lease.lost_reason().map(|r| r.code()), Some(Code::Closed));
                }
                During::ServerShutDown => {
                    // Shut down apart from the body, which the loss stops
                    // at its await (the hold drops it).
                    if let Some(server) = server.take() {
                        tokio::spawn(server.shutdown());
                    }
                    let reason = lease.lost().await;
                    assert_eq!(reason.code(), Code::Closed, "{reason}");
                }
                During::ConnectionBroke => {
                    if let Some(proxy) = &proxy {
                        proxy.abort();
                    }
                    let reason = lease.lost().await;
                    assert_eq!(reason.code(), Code::LeaseLost, "{reason}");
                    assert_eq!(lease.lost_reason().map(|r| r.code()), Some(Code::LeaseLost));
                }
                During::ReleasedInBody => {
                    lease.release().await.unwrap();
                    assert!(lease.lost_reason().is_none(), "released, not lost");
                }
            }
            if body_ok {
                Ok(7)
            } else {
                Err(AppError::Body)
            }
        })
        .await
}

async fn embedded() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    (dir, store)
}

/// A store served in `dir/store`, and a client of it whose connection
/// goes through a proxy (on `dir/proxy.sock`): aborting the proxy's task
/// breaks the connection, as a network or a killed peer would.
async fn served() -> (tempfile::TempDir, Server, JoinHandle<()>, Store) {
    let (dir, server, _) = crate::support::served::served().await;
    let (proxy, store) = through_proxy(dir.path(), &server).await;
    (dir, server, proxy, store)
}

/// The expected outcome of a hold: the body's error; else, for a lease
/// lost during the body, its code; else the value.
fn expected(during: During, body_ok: bool) -> Result<u32, AppError> {
    if !body_ok {
        return Err(AppError::Body);
    }
    match during {
        During::Kept | During::ReleasedInBody => Ok(7),
        During::StoreClosed | During::ServerShutDown => Err(AppError::Store(Code::Closed)),
        During::RanOut | During::ConnectionBroke => Err(AppError::Store(Code::LeaseLost)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hold_on_an_embedded_store_returns_what_the_rule_says() {
    for during in [
        During::Kept,
        During::RanOut,
        During::StoreClosed,
        During::ReleasedInBody,
    ] {
        for body_ok in [true, false] {
            let (_dir, store) = embedded().await;
            let got = hold(&store, None, during, body_ok).await;
            assert_eq!(
                got,
                expected(during, body_ok),
                "{during:?}, body ok: {body_ok}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hold_over_a_connection_returns_what_the_rule_says() {
    for during in [
        During::Kept,
        During::RanOut,
        During::StoreClosed,
        During::ServerShutDown,
        During::ConnectionBroke,
        During::ReleasedInBody,
    ] {
        for body_ok in [true, false] {
            let (_dir, server, proxy, store) = served().await;
            let got = hold(&store, Some((server, proxy)), during, body_ok).await;
            assert_eq!(
                got,
                expected(during, body_ok),
                "{during:?}, body ok: {body_ok}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_hold_gives_a_binding_the_same_answer() {
    let (_dir, store) = embedded().await;
    let locks = store.locks("outcome");
    let kept = locks.acquire("kept").await.unwrap();
    assert!(kept.end_hold(true, false).await.is_ok());
    assert!(!kept.is_held() && kept.lost_reason().is_none());
    let ran_out = locks.acquire_with("ran-out", short()).await.unwrap();
    ran_out.lost().await;
    assert_eq!(
        ran_out.lost_reason().map(|r| r.code()),
        Some(Code::LeaseLost)
    );
    assert_eq!(
        ran_out.end_hold(true, false).await.unwrap_err().code(),
        Code::LeaseLost
    );
    assert_eq!(
        ran_out.lost_reason().map(|r| r.code()),
        Some(Code::LeaseLost),
        "still says why"
    );
    let cancelled_but_kept = locks.acquire("cancelled-kept").await.unwrap();
    assert!(
        cancelled_but_kept.end_hold(false, true).await.is_ok(),
        "no loss was seen: the body's error is its own"
    );
    let lost_cancelled = locks.acquire_with("lost-cancelled", short()).await.unwrap();
    lost_cancelled.lost().await;
    let err = lost_cancelled.end_hold(false, true).await.unwrap_err();
    assert_eq!(err.code(), Code::LeaseLost, "{err}");
    let failed_body = locks.acquire("failed").await.unwrap();
    let closed_cancelled = locks.acquire("closed-cancelled").await.unwrap();
    store.close().await.unwrap();
    assert_eq!(
        failed_body.lost_reason().map(|r| r.code()),
        Some(Code::Closed)
    );
    assert!(
        failed_body.end_hold(false, false).await.is_ok(),
        "the body's error wins"
    );
    let err = closed_cancelled.end_hold(false, true).await.unwrap_err();
    assert_eq!(err.code(), Code::Closed, "{err}");
}

/// A body that never ends by itself is stopped by the loss, and the hold
/// (or lead) fails with why: `lease_lost` when it ran out, `closed` when
/// its store closed. A release by the body is no loss: the body goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loss_stops_the_body_and_the_hold_fails_with_why() {
    let (_dir, store) = embedded().await;
    let locks = store.locks("stopped");
    let ran_out: Result<(), AppError> = locks
        .hold_with("k", short(), async |_lease| {
            std::future::pending::<()>().await;
            Ok(())
        })
        .await;
    assert_eq!(ran_out, Err(AppError::Store(Code::LeaseLost)));
    let released: Result<u32, AppError> = locks
        .hold("k", async |lease| {
            lease.release().await?;
            tokio::task::yield_now().await;
            Ok(7)
        })
        .await;
    assert_eq!(released, Ok(7));
    let led: Result<(), AppError> = store
        .election("stopped")
        .lead_with("me", short(), async |_leadership| {
            std::future::pending::<()>().await;
            Ok(())
        })
        .await;
    assert_eq!(led, Err(AppError::Store(Code::LeaseLost)));
    let closing = store.clone();
    let closed: Result<(), AppError> = locks
        .hold("k", async |_lease| {
            tokio::spawn(async move { closing.close().await });
            std::future::pending::<()>().await;
            Ok(())
        })
        .await;
    assert_eq!(closed, Err(AppError::Store(Code::Closed)));
}

/// A body's result, a release's result, and the hold's outcome.
type Case = (
    Result<u32, AppError>,
    tinystore::Result<()>,
    Result<u32, AppError>,
);

#[test]
fn hold_outcome_puts_the_body_first_then_the_loss_then_the_value() {
    let closed = || Err(Error::new(Code::Closed, "the store was closed"));
    let lost = || Err(Error::new(Code::LeaseLost, "the lease ran out"));
    let table: [Case; 6] = [
        (Ok(1), Ok(()), Ok(1)),
        (Ok(1), closed(), Err(AppError::Store(Code::Closed))),
        (Ok(1), lost(), Err(AppError::Store(Code::LeaseLost))),
        (Err(AppError::Body), Ok(()), Err(AppError::Body)),
        (Err(AppError::Body), closed(), Err(AppError::Body)),
        (Err(AppError::Body), lost(), Err(AppError::Body)),
    ];
    for (body, release, want) in table {
        let case = format!("{body:?} then {release:?}");
        assert_eq!(hold_outcome(body, release), want, "{case}");
    }
}
