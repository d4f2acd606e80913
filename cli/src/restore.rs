//! `tinystore restore BACKUP DIR`: puts a backup in place as a store's kv.db.

use std::path::PathBuf;

/// Restores a backup into the store directory DIR, which no process may
/// have open. The restored store opens with epoch max(now, backed-up
/// epoch plus one): its fences are larger than earlier ones only while this
/// machine's clock is past the epochs given since the backup.
///
/// Example: tinystore restore ./kv-backup.db ./data
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The backup file written by `tinystore backup`.
    backup: PathBuf,
    /// The store directory to restore into.
    dir: PathBuf,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    tinystore::restore(&args.backup, &args.dir)?;
    say!(
        "tinystore restore: {} restored into {}",
        args.backup.display(),
        args.dir.display()
    );
    Ok(0)
}
