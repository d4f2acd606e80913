//! `tinystore elect TARGET NAME --value V -- CMD...`: runs CMD while leading
//! an election.

use crate::supervise::Running;
use crate::target::Target;
use tinystore::Leadership;

/// Campaigns in the election NAME with the value V, waiting first come first
/// served until it leads, then runs CMD while leading (renewing the
/// leadership every ttl/3) and resigns when CMD ends: the next campaigner
/// leads at once. CMD gets the term (the leadership's fence, larger for
/// every later leader) as TINYSTORE_FENCE (decimal) and TINYSTORE_FENCE_TEXT
/// (40 digits): send it with every write. If the leadership is lost (it
/// ran out unrenewed, the server stopped or the connection broke), CMD's
/// process group gets SIGTERM, then SIGKILL after --kill-after. SIGTERM and
/// SIGINT to elect are passed on to CMD.
/// Leaders in several processes need the store served (tinystore serve);
/// a directory nobody serves is opened by elect itself, as by hold.
///
/// Exit status, as hold's: CMD's own (128+N if a signal N ended it) when it
/// led until CMD ended; 76 when the leadership was lost before CMD ended,
/// whatever CMD's status; 75 when --wait ran out; 70 when tinystore failed
/// before CMD ran; 127 when CMD did not start.
///
/// Example: tinystore elect ./data scheduler --value "$(hostname)" --ttl 10s -- ./schedule.sh
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The election's name.
    name: String,
    /// What this leader says it is (text of at most 1,024 bytes), shown by
    /// `tinystore leader`.
    #[arg(long, value_name = "V")]
    value: String,
    #[command(flatten)]
    running: Running,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    crate::supervise::run("elect", &args.running, campaign(&args))
}

async fn campaign(args: &Args) -> tinystore::Result<Leadership> {
    let store = args.target.open().await?;
    let options = args.running.options();
    store
        .election(&args.name)
        .campaign_with(&args.value, options)
        .await
}
