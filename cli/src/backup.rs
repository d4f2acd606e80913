//! `tinystore backup TARGET DEST`: a consistent copy of kv.db, store running.

use crate::target::Target;
use std::path::PathBuf;
use std::process::ExitCode;

/// Writes a consistent copy of the store's kv.db to DEST while it runs.
/// Through a server, DEST is written by the server (Unix socket only).
///
/// Example: tinystore backup ./data ./kv-backup.db
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// Where to write the copy.
    dest: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    crate::target::runtime()?.block_on(async {
        let store = args.target.open().await?;
        store.backup(&args.dest).await?;
        store.close().await
    })?;
    eprintln!("tinystore backup: wrote {}", args.dest.display());
    Ok(ExitCode::SUCCESS)
}
