//! `tinystore watch TARGET GROUP [KEY] [--kind K] [--json]`: every grant,
//! end and change of queue length in a group, as it happens.

use crate::escape::escape;
use crate::target::Target;
use futures_util::StreamExt;
use tinystore::{Code, Error, WatchEvent};

/// Prints one line for every grant (with its fence and the holder's data),
/// release, loss (with its cause) and change of queue length on KEY of the
/// group GROUP, or on every key of it, from now on, in the store's order,
/// until interrupted. A watcher that falls 1,024 events behind is told
/// how many it missed ("lagged 12") and goes on; it never slows the store.
/// With --json, each is one JSON object on one line:
/// {"event":"granted","key":"42","fence":"33130944305371470549764018274305","data":"web-1:4242"}
/// {"event":"queue","key":"42","length":2}
/// {"event":"lost","key":"42","fence":"...","cause":"expired"}
/// Keys and data are shown escaped in text (\n, \x1b, \\).
/// A store directory is watched through its server: a directory nobody
/// serves is refused (unavailable). On etcd, every end is told as
/// released: etcd does not say whether a holder ended it or its TTL did.
///
/// Exit status: 0 when interrupted or stdout closes; 70 when tinystore
/// failed or the watch ended (the server stopped).
///
/// Example: tinystore watch ./data orders --json
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The group's name.
    group: String,
    /// The key to watch; every key of the group when absent.
    key: Option<String>,
    /// The kind of group: lock, semaphore or rwlock.
    #[arg(long, default_value = "lock", value_parser = ["lock", "semaphore", "rwlock"])]
    kind: String,
    /// Print one JSON object a line instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    let rt = crate::target::runtime()?;
    Ok(rt.block_on(async {
        match show(&args).await {
            Ok(()) => 0,
            Err(err) => {
                say!("tinystore watch: {err}");
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
                "no server answers for store {}: its locks are watched through its server \
                 (tinystore serve {})",
                args.target.target, args.target.target
            ),
        ));
    };
    let mut events = match (args.kind.as_str(), &args.key) {
        ("semaphore", Some(key)) => store.semaphore(&args.group, 1).watch(key.as_str()).await?,
        ("semaphore", None) => store.semaphore(&args.group, 1).watch_all().await?,
        ("rwlock", Some(key)) => store.rw_locks(&args.group).watch(key.as_str()).await?,
        ("rwlock", None) => store.rw_locks(&args.group).watch_all().await?,
        (_, Some(key)) => store.locks(&args.group).watch(key.as_str()).await?,
        (_, None) => store.locks(&args.group).watch_all().await?,
    };
    while let Some(event) = events.next().await {
        if !print(&line(&event?, args.json)) {
            // Nobody reads any more (`watch | head -1`): done.
            return Ok(());
        }
    }
    Ok(())
}

/// Writes one line to stdout now; false when stdout is closed.
fn print(line: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}

/// An event in JSON: `event` names its kind, with the fields it has.
#[derive(serde::Serialize)]
struct Shown<'a> {
    event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    missed: Option<u64>,
}

/// One event as a line of text or of JSON.
fn line(event: &WatchEvent, json: bool) -> String {
    let mut shown = Shown {
        event: event.kind(),
        key: event.key(),
        fence: None,
        data: None,
        cause: None,
        length: None,
        missed: None,
    };
    match event {
        WatchEvent::Granted { fence, data, .. } => {
            shown.fence = fence.map(|f| f.to_string());
            shown.data = data.as_deref();
        }
        WatchEvent::Released { fence, .. } => shown.fence = fence.map(|f| f.to_string()),
        WatchEvent::Lost { fence, cause, .. } => {
            shown.fence = fence.map(|f| f.to_string());
            shown.cause = Some(cause);
        }
        WatchEvent::Queue { length, .. } => shown.length = Some(*length),
        WatchEvent::Lagged { missed } => shown.missed = Some(*missed),
        _ => {}
    }
    if json {
        return serde_json::to_string(&shown).expect("an event always serializes");
    }
    let mut text = shown.event.to_string();
    if let Some(key) = shown.key {
        text += &format!(" {}", escape(key));
    }
    if let Some(fence) = &shown.fence {
        text += &format!(" fence {fence}");
    }
    if let Some(data) = shown.data {
        text += &format!(" data {}", escape(data));
    }
    if let Some(cause) = shown.cause {
        text += &format!(" cause {cause}");
    }
    if let Some(length) = shown.length {
        text += &format!(" waiting {length}");
    }
    if let Some(missed) = shown.missed {
        text += &format!(" missed {missed}");
    }
    text
}
