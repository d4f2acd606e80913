//! `tinystore leader TARGET NAME [--json] [--watch]`: who leads an election.

use crate::escape::escape;
use crate::target::Target;
use futures_util::StreamExt;
use tinystore::{Code, Error, Leader};

/// Prints the leader of the election NAME: its term (the fence of its
/// leadership, larger for every later leader) and its value, or "no
/// leader". With --watch, prints the leader now, then one line for every
/// change of leader, in order, as it happens ("no leader" when nobody
/// leads), until interrupted. With --json, each is one JSON object on one
/// line: {"value":"worker-7","term":"33130944305371470549764018274305"},
/// or {"value":null,"term":null} when nobody leads.
/// Values are shown escaped in text (\n, \x1b, \\).
/// Elections are seen through the store's server: a directory nobody
/// serves is refused (unavailable).
///
/// Exit status: 0 (whether or not anyone leads); 70 when tinystore failed,
/// or a watch ended (the server stopped, or the watch fell more than 1,024
/// changes behind).
///
/// Example: tinystore leader ./data scheduler --watch --json
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The election's name.
    name: String,
    /// Print one JSON object a line instead of text.
    #[arg(long)]
    json: bool,
    /// Print every change of leader as it happens, until interrupted.
    #[arg(long)]
    watch: bool,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    let rt = crate::target::runtime()?;
    Ok(rt.block_on(async {
        match show(&args).await {
            Ok(()) => 0,
            Err(err) => {
                say!("tinystore leader: {err}");
                crate::supervise::EXIT_ERROR
            }
        }
    }))
}

async fn show(args: &Args) -> tinystore::Result<()> {
    let Some(store) = args.target.open_served().await? else {
        return Err(Error::new(
            Code::Unavailable,
            format!(
                "no server answers for store {}: its elections are led and seen through its \
                 server (tinystore serve {})",
                args.target.target, args.target.target
            ),
        ));
    };
    let election = store.election(&args.name);
    if !args.watch {
        print(&line(election.leader().await?.as_ref(), args.json));
        return Ok(());
    }
    let mut changes = election.observe().await?;
    while let Some(change) = changes.next().await {
        if !print(&line(change?.as_ref(), args.json)) {
            // Nobody reads any more (`--watch | head -1`): done.
            return Ok(());
        }
    }
    Ok(())
}

/// Writes one line to stdout now; false when stdout is closed (where
/// `println!` would panic).
fn print(line: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}

/// A leader in JSON: both fields `null` when nobody leads.
#[derive(serde::Serialize)]
struct Shown<'a> {
    value: Option<&'a str>,
    term: Option<String>,
}

/// One leader (or none) as a line of text or of JSON.
fn line(leader: Option<&Leader>, json: bool) -> String {
    if json {
        let shown = Shown {
            value: leader.map(|l| l.value.as_str()),
            term: leader.map(|l| l.fence.to_string()),
        };
        return serde_json::to_string(&shown).expect("a leader always serializes");
    }
    match leader {
        Some(l) => format!("term {} {}", l.fence, escape(&l.value)),
        None => "no leader".to_string(),
    }
}
