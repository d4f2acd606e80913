//! `tinystore status TARGET`: the epoch, the fences given, held keys and waiters.

use crate::target::Target;
use std::process::ExitCode;
use tinystore::disk::Unserved;
use tinystore::Status;

/// Shows the store's epoch, the fences given, each held key with its fence
/// and time left, and the keys with waiters. A store directory that no
/// server answers for is only read, never opened: status then shows the
/// epoch of its last open and whether it was closed cleanly.
///
/// Example: tinystore status ./data --json
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// Print JSON (the wire's status object) instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let seen = crate::target::runtime()?.block_on(async {
        match args.target.open_served().await? {
            Some(store) => store.status().await.map(Ok),
            None => tinystore::disk::peek(args.target.target.as_ref()).map(Err),
        }
    })?;
    match (seen, args.json) {
        (Ok(status), true) => println!("{}", serde_json::to_string_pretty(&status)?),
        (Ok(status), false) => print!("{}", render(&status)),
        (Err(unserved), true) => {
            let shown = Shown {
                served: false,
                store: &unserved,
            };
            println!("{}", serde_json::to_string_pretty(&shown)?)
        }
        (Err(unserved), false) => print!("{}", render_unserved(&unserved)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON of an unserved store: `served: false`, then what it tells.
#[derive(serde::Serialize)]
struct Shown<'a> {
    served: bool,
    #[serde(flatten)]
    store: &'a Unserved,
}

fn render_unserved(store: &Unserved) -> String {
    let mut out = format!("store   {} is not served\n", store.dir.display());
    match store.last_epoch {
        Some(epoch) => {
            out += &format!("epoch   {epoch} at its last open (the next takes a larger one)\n")
        }
        None => out += "epoch   none yet: it was never opened\n",
    }
    out += if store.closed_cleanly {
        "closed  cleanly\n"
    } else {
        "closed  not cleanly: a process has it open, or stopped without closing it\n"
    };
    out
}

fn render(status: &Status) -> String {
    let mut out = format!("epoch   {}\n", status.epoch);
    match status.last_fence {
        Some(fence) => out += &format!("fences  {} given, last {fence}\n", status.fences_given),
        None => out += "fences  none given\n",
    }
    if let Some(ms) = status.grace_left_ms {
        out += &format!("grace   {ms} ms left (no grants until then)\n");
    }
    out += &format!("held    {}\n", status.held.len());
    for h in &status.held {
        let fence = h
            .fence
            .map_or("permit".to_string(), |f| format!("fence {f}"));
        let renewing = if h.renewing { ", kept alive" } else { "" };
        out += &format!(
            "  {}/{}  {fence}  {} ms left of {} ms{renewing}\n",
            h.name, h.key, h.left_ms, h.ttl_ms
        );
    }
    out += &format!("waiting {}\n", status.waiting.len());
    for w in &status.waiting {
        out += &format!("  {}/{}  {} waiting\n", w.name, w.key, w.waiters);
    }
    out
}
