//! Calls to etcd that are safe to repeat, retried a few times while the
//! cluster is unavailable (a member died, a new leader is being elected).
//!
//! A try that failed as unavailable may still have taken effect: its
//! request reached etcd and only the answer was lost. So every retried
//! write is written to be right when repeated after its own effect: the
//! join of a queue writes its entry only if it is not there yet, a grant
//! writes only over the entry's last write it knows (acquire.rs), and a
//! release that finds its entry gone after such a try counts it as its own
//! delete (lease_watch.rs, mod.rs). The other calls do no harm repeated: a
//! read; the epoch's first write (written only if missing); a lease grant
//! (the etcd lease whose answer was lost, never used, runs out at its
//! TTL); a revoke (the repeat finds the lease gone); raising the epoch
//! (raised twice, still above every fence before).

use super::error_map::map;
use super::members::Members;
use crate::error::{Code, Result};
use etcd_client::Error as EtcdError;
use std::future::Future;
use std::time::Duration;

/// How many times a repeatable call is tried while etcd is unavailable.
const TRIES: u32 = 6;
/// The pause after the first unavailable answer; it doubles each try.
const FIRST_PAUSE: Duration = Duration::from_millis(50);

/// What a retried call got, and whether an earlier try of it may have
/// taken effect: its request may have reached etcd, but its answer was
/// lost (every `unavailable` failure counts: a member that died or was cut
/// off after it got the request).
pub(crate) struct Retried<T> {
    pub(crate) value: T,
    /// An earlier try's outcome is unknown.
    pub(crate) unsure: bool,
}

/// Runs `call` until it succeeds, fails with another code than
/// `unavailable`, or was tried `TRIES` times. Only for calls whose repeat
/// does no harm: reads, and writes whose repeat finds what an earlier try
/// did (see `retry_unsure` for a write whose answer must tell).
/// An unavailable answer moves later calls on to the next member.
pub(crate) async fn retry<T, F, Fut>(members: &Members, what: &str, call: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = std::result::Result<T, EtcdError>>,
{
    Ok(retry_unsure(members, what, call).await?.value)
}

/// As `retry`, telling with the answer whether an earlier try may have
/// taken effect, for a call whose answer says what that try would have
/// changed (a delete that finds nothing deleted may follow its own).
pub(crate) async fn retry_unsure<T, F, Fut>(
    members: &Members,
    what: &str,
    mut call: F,
) -> Result<Retried<T>>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = std::result::Result<T, EtcdError>>,
{
    let mut pause = FIRST_PAUSE;
    let mut tries = 1;
    let mut unsure = false;
    loop {
        let member = members.current();
        match call().await {
            Ok(value) => return Ok(Retried { value, unsure }),
            Err(err) => {
                let err = map(what, err);
                if err.code() != Code::Unavailable {
                    return Err(err);
                }
                unsure = true;
                members.failed(member);
                if tries >= TRIES {
                    return Err(err);
                }
            }
        }
        tokio::time::sleep(pause).await;
        pause *= 2;
        tries += 1;
    }
}
