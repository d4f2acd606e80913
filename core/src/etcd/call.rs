//! Calls to etcd that are safe to repeat, retried a few times while the
//! cluster is unavailable (a member died, a new leader is being elected).

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

/// Runs `call` until it succeeds, fails with another code than
/// `unavailable`, or was tried `TRIES` times. Only for calls whose repeat
/// does no harm.
/// An unavailable answer moves later calls on to the next member.
pub(crate) async fn retry<T, F, Fut>(members: &Members, what: &str, mut call: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = std::result::Result<T, EtcdError>>,
{
    let mut pause = FIRST_PAUSE;
    let mut tries = 1;
    loop {
        let member = members.current();
        match call().await {
            Ok(value) => return Ok(value),
            Err(err) => {
                let err = map(what, err);
                if err.code() != Code::Unavailable {
                    return Err(err);
                }
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
