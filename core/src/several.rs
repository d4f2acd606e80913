//! Several keys of one lock group at once: every key or none, with no
//! deadlock whatever order callers name them in.
//!
//! The keys are taken one by one in one order for everyone (by key text),
//! the classic way to make waits-for cycles impossible: a caller waiting
//! for a key holds only keys that come before it, so no two callers can
//! each wait for what the other holds. The caller's `wait` covers the
//! whole: each key waits only for what is left of it. A failure or a
//! give-up drops the leases already taken, which releases them.

use crate::error::{Code, Error, Result};
use crate::group::Group;
use crate::hold::{hold_outcome, stopped_outcome};
use crate::lease::{Holding, LeaseKind};
use crate::options::Options;
use crate::vocab::Request;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use tokio::time::Instant;

/// The most keys one `acquire_all` may name.
pub const MAX_KEYS_AT_ONCE: usize = 1_024;

/// The checked requests for `keys` with `over`, and the order to take
/// them in (positions in `keys`, sorted by key text). `invalid` on no key,
/// more than [`MAX_KEYS_AT_ONCE`], or a key named twice.
fn requests(group: &Group, keys: &[String], over: Options) -> Result<(Vec<Request>, Vec<usize>)> {
    if keys.is_empty() || keys.len() > MAX_KEYS_AT_ONCE {
        return Err(Error::invalid(format!(
            "acquire_all on {} was given {} keys; it takes 1 to {MAX_KEYS_AT_ONCE}",
            group.name(),
            keys.len()
        )));
    }
    let requests = keys
        .iter()
        .map(|key| group.request(key, over.clone()))
        .collect::<Result<Vec<_>>>()?;
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    if let Some(twice) = order.windows(2).find(|w| keys[w[0]] == keys[w[1]]) {
        return Err(Error::invalid(format!(
            "acquire_all on {} names key {:?} twice",
            group.name(),
            keys[twice[0]]
        )));
    }
    Ok((requests, order))
}

/// Takes every key of `keys` (a lease each, in the order of `keys`) or
/// none: waits first come first served for each in key order, within the
/// `wait` of the options for all of them together; then `timeout` naming
/// the keys, with none held.
pub(crate) async fn acquire_all<H: LeaseKind>(
    group: &Group,
    keys: Vec<String>,
    over: Options,
) -> Result<Vec<H>> {
    let (requests, order) = requests(group, &keys, over)?;
    let started = Instant::now();
    let wait = requests[0].wait();
    let mut taken: Vec<Option<H>> = (0..keys.len()).map(|_| None).collect();
    for at in order {
        let request = requests[at].clone();
        let request = match wait {
            Some(wait) => request.with_wait(Some(wait.saturating_sub(started.elapsed()))),
            None => request,
        };
        let err = match group.acquire_request::<H>(request).await {
            Ok(held) => {
                taken[at] = Some(held);
                continue;
            }
            Err(err) if err.code() == Code::Timeout => Error::new(
                Code::Timeout,
                format!(
                    "waited {:?} for all of {} keys of {} without getting them: {}",
                    wait.unwrap_or_default(),
                    keys.len(),
                    group.name(),
                    err.message()
                ),
            ),
            Err(err) => err,
        };
        // Released before the error is told, so that the caller finds the
        // keys free (a give-up, dropping this future, releases them by
        // dropping `taken`, in the background over a connection).
        for held in taken.iter().flatten() {
            let _ = held.holding().release().await;
        }
        return Err(err);
    }
    taken
        .into_iter()
        .map(|held| held.ok_or_else(|| Error::internal("acquire_all left a key untaken")))
        .collect()
}

/// Takes every key of `keys` as [`acquire_all`] does, runs `body` with the
/// leases (in the order of `keys`) until it ends or any lease is lost (then
/// `body` is dropped at its await), and releases them all however `body`
/// ends; returns as a hold of one key does ([`hold_outcome`]), the first
/// loss standing for all.
pub(crate) async fn hold_all<H: LeaseKind, T, E: From<Error>>(
    group: &Group,
    keys: Vec<String>,
    over: Options,
    body: impl AsyncFnOnce(&[H]) -> Result<T, E>,
) -> Result<T, E> {
    let held: Vec<H> = acquire_all(group, keys, over).await?;
    let holdings: Vec<&Holding> = held.iter().map(LeaseKind::holding).collect();
    let ended = until_any_lost(&holdings, body(&held)).await;
    let mut released = Ok(());
    for holding in &holdings {
        let release = holding.release().await;
        if released.is_ok() {
            released = release;
        }
    }
    match ended {
        Ok(result) => hold_outcome(result, released),
        Err(lost) => stopped_outcome(released, lost),
    }
}

/// Runs `body` until it ends or any of `holdings` is lost (the first loss
/// stops it).
async fn until_any_lost<T>(holdings: &[&Holding], body: impl Future<Output = T>) -> Result<T> {
    let mut losses: Vec<Pin<Box<_>>> = holdings.iter().map(|h| Box::pin(h.loss())).collect();
    let any_loss = std::future::poll_fn(|cx| {
        for loss in &mut losses {
            if let Poll::Ready(reason) = loss.as_mut().poll(cx) {
                return Poll::Ready(reason);
            }
        }
        Poll::Pending
    });
    tokio::select! {
        biased;
        value = body => Ok(value),
        reason = any_loss => Err(reason),
    }
}
