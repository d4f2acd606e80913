//! `tinystore hold TARGET NAME KEY... -- CMD...`: runs CMD while holding a
//! lock (or several keys of one lock group, a read or write lease of a
//! read-write lock, or a semaphore's permit).

use crate::held::{Held, Reading, Several};
use crate::supervise::Running;
use crate::target::Target;
use tinystore::{Code, Error, Store};

/// Holds NAME/KEY while CMD runs, renewing the lease every ttl/3. CMD gets
/// TINYSTORE_FENCE (decimal) and TINYSTORE_FENCE_TEXT (40 digits). If the
/// lease is lost (it ran out unrenewed or at --max-hold, the server stopped
/// or the connection broke), CMD's process group gets SIGTERM, then SIGKILL
/// after --kill-after. SIGTERM and SIGINT to hold are passed on to CMD.
///
/// Several keys (NAME KEY1 KEY2 ...) are held all or none, with no deadlock
/// whatever order other holders name them in: TINYSTORE_FENCES and
/// TINYSTORE_FENCES_TEXT list a fence per key, space-separated, in the
/// order given (TINYSTORE_FENCE is not set: write each key with its own).
/// --read and --write hold a key of the read-write lock NAME: readers share
/// it, a writer holds it alone with a fence. --limit N holds one of the N
/// places of the semaphore NAME's key (--weight W of them). A read lease and
/// a permit have no fence: TINYSTORE_FENCE is not set.
/// --data TEXT is kept with the lease (each lease, for several keys):
/// `tinystore status` shows it and watchers are given it; by default it is
/// HOST:PID of this hold process.
/// A TARGET directory must hold a store (hold never makes one); one nobody
/// serves is opened by hold itself, which after an unclean stop of a served
/// store grants nothing until the store's grace has passed.
///
/// Exit status: CMD's own (128+N if a signal N ended it) when the lease was
/// held until CMD ended; 76 when the lease was lost before CMD ended, whatever
/// CMD's status; 75 when --wait ran out; 70 when tinystore failed before CMD
/// ran; 127 when CMD did not start.
///
/// Example: tinystore hold ./data summaries 42 --ttl 10s --wait 1m -- ./summarize.sh 42
///          tinystore hold ./data accounts 17 42 -- ./transfer.sh 17 42
///          tinystore hold ./data reports 2026 --read -- ./read-report.sh
///          tinystore hold ./data nightly export --data "cron on build-7" -- ./export.sh
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The group's name: a lock group, or with --read/--write a read-write
    /// lock group, or with --limit a semaphore.
    name: String,
    /// The key to hold; several keys of a lock group are held all or none.
    #[arg(required = true, num_args = 1.., value_name = "KEY")]
    keys: Vec<String>,
    /// Hold a read lease of the read-write lock NAME/KEY (shared with other
    /// readers; no fence).
    #[arg(long, conflicts_with_all = ["write", "limit"])]
    read: bool,
    /// Hold the write lease of the read-write lock NAME/KEY (alone, with a
    /// fence).
    #[arg(long, conflicts_with = "limit")]
    write: bool,
    /// Hold a permit of the semaphore NAME, whose keys have N places each
    /// (1 to 1000000; no fence).
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
    /// How many of the semaphore's places the permit takes (1 to --limit).
    #[arg(long, value_name = "W", requires = "limit")]
    weight: Option<u32>,
    /// What this holder says about itself, kept with the lease: shown by
    /// status, given to watchers (at most 1024 bytes; default HOST:PID of
    /// this process; an empty text attaches nothing).
    #[arg(long, value_name = "TEXT")]
    data: Option<String>,
    #[command(flatten)]
    running: Running,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    let running = &args.running;
    match (args.read, args.write, args.limit) {
        (true, _, _) => crate::supervise::run("hold", running, read(&args)),
        (_, true, _) => crate::supervise::run("hold", running, write(&args)),
        (_, _, Some(limit)) => crate::supervise::run("hold", running, permit(&args, limit)),
        _ if args.keys.len() > 1 => crate::supervise::run("hold", running, several(&args)),
        _ => crate::supervise::run("hold", running, lock(&args)),
    }
}

/// The one key of a read, write or permit hold: several are `invalid`.
fn one_key(args: &Args, what: &str) -> tinystore::Result<String> {
    match args.keys.as_slice() {
        [key] => Ok(key.clone()),
        keys => Err(Error::new(
            Code::Invalid,
            format!(
            "{what} holds one key, and was given {}; several keys are held only of a lock group",
                keys.len()
            ),
        )),
    }
}

async fn store(args: &Args) -> tinystore::Result<Store> {
    args.target.open().await
}

/// The lease options the flags ask for: the TTL, wait and max_hold of
/// every command that runs CMD, and hold's own --data.
fn options(args: &Args) -> tinystore::Options {
    tinystore::Options {
        data: args.data.as_deref().map(Into::into),
        ..args.running.options()
    }
}

async fn lock(args: &Args) -> tinystore::Result<impl Held> {
    let key = one_key(args, "a lock")?;
    let locks = store(args).await?.locks(&args.name);
    locks.acquire_with(key, options(args)).await
}

async fn several(args: &Args) -> tinystore::Result<impl Held> {
    let locks = store(args).await?.locks(&args.name);
    let keys = args.keys.iter().map(String::as_str);
    let leases = locks.acquire_all(keys, options(args)).await?;
    Ok(Several(leases))
}

async fn read(args: &Args) -> tinystore::Result<impl Held> {
    let key = one_key(args, "--read")?;
    let rw = store(args).await?.rw_locks(&args.name);
    let permit = rw.acquire_read_with(key, options(args)).await?;
    Ok(Reading(permit))
}

async fn write(args: &Args) -> tinystore::Result<impl Held> {
    let key = one_key(args, "--write")?;
    let rw = store(args).await?.rw_locks(&args.name);
    rw.acquire_write_with(key, options(args)).await
}

async fn permit(args: &Args, limit: u32) -> tinystore::Result<impl Held> {
    let key = one_key(args, "a semaphore's permit")?;
    let semaphore = store(args).await?.semaphore(&args.name, limit);
    let options = tinystore::Options {
        weight: args.weight,
        ..options(args)
    };
    semaphore.acquire_with(key, options).await
}
