//! `tinystore backup TARGET DEST`: a consistent copy of kv.db, store running.

use crate::target::Target;
use std::path::{Path, PathBuf};

/// Writes a consistent copy of the store's kv.db to DEST while it runs.
/// Through a server, DEST is written by the server (Unix socket only). A
/// store directory nobody owns is only read (under its LOCK), never opened:
/// no epoch is written and its clean mark stays as it is. DEST may not be
/// one of the store's own files (kv.db, kv.db-wal, kv.db-shm, LOCK, EPOCH).
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

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    crate::target::runtime()?.block_on(async {
        match args.target.open_served().await? {
            Some(store) => {
                store.backup(&args.dest).await?;
                store.close().await
            }
            None => {
                tinystore::store_dir::backup_unowned(Path::new(&args.target.target), &args.dest)
            }
        }
    })?;
    say!("tinystore backup: wrote {}", args.dest.display());
    Ok(0)
}
