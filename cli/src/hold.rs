//! `tinystore hold TARGET NAME KEY -- CMD...`: runs CMD while holding a lock.

use crate::supervise::Running;
use crate::target::Target;
use tinystore::Lease;

/// Holds NAME/KEY while CMD runs, renewing the lease every ttl/3. CMD gets
/// TINYSTORE_FENCE (decimal) and TINYSTORE_FENCE_TEXT (40 digits). If the
/// lease is lost (it ran out unrenewed, the server stopped or the connection
/// broke), CMD's process group gets SIGTERM, then SIGKILL after --kill-after.
/// SIGTERM and SIGINT to hold are passed on to CMD.
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
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The lock group's name.
    name: String,
    /// The key to hold.
    key: String,
    #[command(flatten)]
    running: Running,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    crate::supervise::run("hold", &args.running, acquire(&args))
}

async fn acquire(args: &Args) -> tinystore::Result<Lease> {
    let store = args.target.open().await?;
    let options = args.running.options();
    store
        .locks(&args.name)
        .acquire_with(args.key.as_str(), options)
        .await
}
