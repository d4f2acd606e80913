//! The other ways to hold, for the torture worker (`--ways all`): several
//! chats at once (`hold_all`, each saved through the fenced update with its
//! own lease's fence), read and write leases of a read-write lock, and
//! weighted permits of a semaphore, some with a `max_hold` shorter than
//! the hold so that they run out there. Only the audit log checks these
//! (tests/torture/check.py): no writer with another holder, weights within
//! the limit, write fences rising, nothing renewed past its max_hold.

use crate::torture::save_logged;
use rusqlite::Connection;
use std::time::Duration;
use tinystore::blocking::Store;
use tinystore::Options;

/// The read-write lock group, one key per chat.
const REPORTS: &str = "reports";
/// The semaphore, its one key and its places.
const POOL: &str = "pool";
const POOL_KEY: &str = "gpu";
const POOL_LIMIT: u32 = 3;
/// A capped hold's max_hold, and how long it pauses: past it, so that the
/// lease is renewed once (every ttl/3) and then runs out at its max_hold.
const MAX_HOLD: Duration = Duration::from_millis(150);
const CAPPED_PAUSE: Duration = Duration::from_millis(220);

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// What a hold of another way needs: the store, the chat database (for
/// the saves of several chats), the worker's name, the TTL and the pause
/// inside a hold.
pub struct Hold<'a> {
    pub store: &'a Store,
    pub conn: &'a Connection,
    pub worker: &'a str,
    pub ttl: Duration,
    pub pause: Duration,
}

impl Hold<'_> {
    /// Runs the hold `roll` (0..100) picks: several chats (`chat` and
    /// `other`, one chat when they are the same), a read or a write of
    /// `chat`, or a weighted permit; one in three capped by a max_hold
    /// (then it runs out there and ends with `lease_lost`). `Ok` when it
    /// held to its end.
    pub fn run(&self, roll: u64, chat: i64, other: i64) -> Result<()> {
        let capped = roll.is_multiple_of(3);
        let options = Options {
            ttl: Some(self.ttl),
            max_hold: capped.then_some(MAX_HOLD),
            ..Options::default()
        };
        let pause = if capped { CAPPED_PAUSE } else { self.pause };
        match roll {
            0..=39 => self.several(chat, other),
            40..=69 => {
                let rw = self.store.rw_locks(REPORTS);
                let held = rw.acquire_read_with(chat, options)?;
                std::thread::sleep(pause);
                Ok(held.release()?)
            }
            70..=84 => {
                let rw = self.store.rw_locks(REPORTS);
                let held = rw.acquire_write_with(chat, options)?;
                std::thread::sleep(pause);
                Ok(held.release()?)
            }
            _ => {
                let weight = u32::try_from(roll % u64::from(POOL_LIMIT)).unwrap_or(0) + 1;
                let sem = self.store.semaphore(POOL, POOL_LIMIT);
                let options = Options {
                    weight: Some(weight),
                    ..options
                };
                let held = sem.acquire_with(POOL_KEY, options)?;
                std::thread::sleep(pause);
                Ok(held.release()?)
            }
        }
    }

    /// Holds `chat` and `other` of the lock group together (named in either
    /// order) and saves each with its own lease's fence.
    fn several(&self, chat: i64, other: i64) -> Result<()> {
        let chats = if chat == other {
            vec![chat]
        } else {
            vec![chat, other]
        };
        let summaries = self.store.locks("summaries").ttl(self.ttl);
        summaries.hold_all(chats.clone(), Options::default(), |leases| -> Result<()> {
            std::thread::sleep(self.pause);
            for (chat, lease) in chats.iter().zip(leases) {
                let fence = format!("{:040}", lease.fence().get());
                save_logged(self.conn, *chat, &fence, self.worker)?;
            }
            Ok(())
        })
    }
}
