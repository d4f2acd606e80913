//! `tinystore status TARGET`: the epoch, the fences given, held keys and waiters.

use crate::target::Target;
use std::process::ExitCode;
use tinystore::Status;

/// Shows the store's epoch, the fences given, each held key with its fence
/// and time left, and the keys with waiters.
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
    let status = crate::target::runtime()?.block_on(async {
        let store = args.target.open().await?;
        store.status().await
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&status)?);
    } else {
        print!("{}", render(&status));
    }
    Ok(ExitCode::SUCCESS)
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
