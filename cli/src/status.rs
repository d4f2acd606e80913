//! `tinystore status TARGET`: the epoch, the fences given, held keys and waiters.

use crate::human;
use crate::table::{labelled, Align, Table};
use crate::target::Target;
use tinystore::store_dir::Unserved;
use tinystore::{HeldStatus, RefusedStatus, Status, WaitingStatus};

/// Shows the store's epoch, the fences given, each held key with its kind
/// (lock, semaphore, rwlock read or write, election), the places it takes
/// (WEIGHT), its fence and time left, its holder's data (DATA: what it
/// said when it acquired, by default HOST:PID; the first 40 characters,
/// whole in --json), the keys with waiters, and per group the late writes
/// its guards refused, in aligned columns: a fence as its decimal, its
/// epoch's date (UTC) and its count; durations as 1.2s. Names, keys and
/// data are shown escaped (\n, \x1b, \\). A store directory that no
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
    /// Show at most N held leases and N keys with waiters (1 to 10000);
    /// the rest are counted ("... and 5 more"; in JSON `more` is true).
    #[arg(long, value_name = "N", default_value_t = tinystore::DEFAULT_STATUS_LIMIT)]
    limit: usize,
}

pub fn run(args: Args) -> Result<u8, Box<dyn std::error::Error>> {
    let seen = crate::target::runtime()?.block_on(async {
        match args.target.open_served().await? {
            Some(store) => {
                let page = tinystore::StatusPage {
                    limit: args.limit,
                    ..Default::default()
                };
                store.status_page(page).await.map(Ok)
            }
            None => tinystore::store_dir::peek(args.target.target.as_ref()).map(Err),
        }
    })?;
    let text = match (seen, args.json) {
        (Ok(status), true) => serde_json::to_string_pretty(&status)? + "\n",
        (Ok(status), false) => render(&status),
        (Err(unserved), true) => {
            let shown = Shown {
                served: false,
                store: &unserved,
            };
            serde_json::to_string_pretty(&shown)? + "\n"
        }
        (Err(unserved), false) => render_unserved(&unserved),
    };
    show(&text);
    Ok(0)
}

/// Writes `text` to stdout, ignoring a stdout nobody reads any more
/// (`status | head -1`), where `print!` would panic.
fn show(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// The JSON of an unserved store: `served: false`, then what it tells.
#[derive(serde::Serialize)]
struct Shown<'a> {
    served: bool,
    #[serde(flatten)]
    store: &'a Unserved,
}

fn render_unserved(store: &Unserved) -> String {
    let mut out = labelled("store", &format!("{} is not served", store.dir.display()));
    out += &labelled(
        "epoch",
        &match store.last_epoch {
            Some(epoch) => format!(
                "{epoch} ({}) at its last open (the next takes a larger one)",
                human::date(epoch)
            ),
            None => "none yet: it was never opened".to_string(),
        },
    );
    out + &labelled(
        "closed",
        if store.closed_cleanly {
            "cleanly"
        } else {
            "not cleanly: a process has it open, or stopped without closing it"
        },
    )
}

fn render(status: &Status) -> String {
    let epoch = format!("{} ({})", status.epoch, human::date(status.epoch));
    let mut out = labelled("epoch", &epoch);
    let fences = match status.last_fence {
        Some(fence) => format!(
            "{} given, last {}",
            status.fences_given,
            human::fence(fence)
        ),
        None => "none given".to_string(),
    };
    out += &labelled("fences", &fences);
    if status.testing {
        out += &labelled(
            "testing",
            "yes: a test store; the test kit may move its time and expire its leases",
        );
    }
    if let Some(ms) = status.grace_left_ms {
        let grace = format!("{} left (no grants until then)", human::duration(ms));
        out += &labelled("grace", &grace);
    }
    out += &labelled(
        "held",
        &status.held_total.max(status.held.len()).to_string(),
    );
    if !status.held.is_empty() {
        out += &held_table(&status.held).render("  ");
    }
    out += &more(status.held_total, status.held.len());
    out += &labelled(
        "waiting",
        &status.waiting_total.max(status.waiting.len()).to_string(),
    );
    if !status.waiting.is_empty() {
        out += &waiting_table(&status.waiting).render("  ");
    }
    out += &more(status.waiting_total, status.waiting.len());
    if !status.longest_waits.is_empty() {
        out += &labelled(
            "longest",
            "waits: the lines whose first caller waited longest",
        );
        out += &waiting_table(&status.longest_waits).render("  ");
    }
    if !status.late_writes_refused.is_empty() {
        out += &labelled(
            "refused",
            "late writes refused by guards, per group, since the store opened",
        );
        out += &refused_table(&status.late_writes_refused).render("  ");
    }
    out
}

/// One row per group whose guards refused late writes: how many.
fn refused_table(refused: &[RefusedStatus]) -> Table {
    let mut table = Table::new(&[
        ("NAME", Align::Left),
        ("KIND", Align::Left),
        ("REFUSED", Align::Right),
    ]);
    for r in refused {
        table.row([r.name.as_str(), r.kind.as_str(), &r.refused.to_string()]);
    }
    table
}

/// One row per held lease: its kind (with a read-write lock's mode), the
/// places it takes, its fence (or none, for a permit or a read lease),
/// time left and TTL, its holder's data (cut at [`DATA_SHOWN`]
/// characters; `--json` has it whole); for an election's leadership, the
/// leader's value as its key.
fn held_table(held: &[HeldStatus]) -> Table {
    let mut table = Table::new(&[
        ("NAME", Align::Left),
        ("KEY", Align::Left),
        ("KIND", Align::Left),
        ("WEIGHT", Align::Right),
        ("FENCE", Align::Left),
        ("LEFT", Align::Right),
        ("TTL", Align::Right),
        ("DATA", Align::Left),
        ("", Align::Left),
    ]);
    for h in held {
        let fence = match (h.fence, h.mode.as_deref()) {
            (Some(fence), _) => human::fence(fence),
            (None, Some(mode)) => format!("{mode} (no fence)"),
            (None, None) => "permit (no fence)".to_string(),
        };
        let renewing = if h.renewing {
            "renewed by the store"
        } else {
            ""
        };
        // An election's leadership has no key: its leader's value is shown.
        let key = match &h.leader {
            Some(value) => format!("(leader) {value}"),
            None => h.key.clone(),
        };
        table.row([
            h.name.as_str(),
            &key,
            &kind(&h.kind, h.mode.as_deref()),
            &weight(h),
            &fence,
            &human::duration(h.left_ms),
            &human::duration(h.ttl_ms),
            &data_cell(h.data.as_deref()),
            renewing,
        ]);
    }
    table
}

/// The most characters of a holder's data the table shows.
const DATA_SHOWN: usize = 40;

/// A holder's data as its cell: `-` for none, cut at [`DATA_SHOWN`]
/// characters with `...` after.
fn data_cell(data: Option<&str>) -> String {
    match data {
        None => "-".to_string(),
        Some(data) if data.chars().count() > DATA_SHOWN => {
            format!("{}...", data.chars().take(DATA_SHOWN).collect::<String>())
        }
        Some(data) => data.to_string(),
    }
}

/// A lease's kind of group, with a read-write lock's mode: `lock`,
/// `semaphore`, `rwlock read`, `rwlock write`, `election`.
fn kind(kind: &str, mode: Option<&str>) -> String {
    match mode {
        Some(mode) => format!("{kind} {mode}"),
        None => kind.to_string(),
    }
}

/// The places a lease takes: its weight, or `all` for a write lease (it
/// takes every place of its key).
fn weight(held: &HeldStatus) -> String {
    if held.mode.as_deref() == Some("write") {
        "all".to_string()
    } else {
        held.weight.to_string()
    }
}

/// One row per key with waiters.
fn waiting_table(waiting: &[WaitingStatus]) -> Table {
    let mut table = Table::new(&[
        ("NAME", Align::Left),
        ("KEY", Align::Left),
        ("KIND", Align::Left),
        ("WAITERS", Align::Right),
        ("FIRST WAITED", Align::Right),
    ]);
    for w in waiting {
        let waited = w.waited_ms.map_or("-".to_string(), human::duration);
        table.row([&w.name, &w.key, &w.kind, &w.waiters.to_string(), &waited]);
    }
    table
}

/// The line counting what a list left out at the limit, if it left any.
fn more(total: usize, shown: usize) -> String {
    match total.saturating_sub(shown) {
        0 => String::new(),
        left => format!("  ... and {left} more (--limit shows more)\n"),
    }
}
