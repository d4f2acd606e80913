//! scheduler in Rust: workers campaign in the election `scheduler`; only
//! the leader runs the job, and it runs it with its term, so a leader that
//! paused past its TTL cannot run it after its successor did. See
//! ../README.md for the commands, which every language's program shares.

mod jobs_db;

use futures_util::StreamExt;
use std::collections::HashMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinystore::{Code, Store};
use tokio::sync::{mpsc, watch};

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

const COMMANDS: &str = "scene, run, lead-and-run";

/// The command and its `--flag value` pairs.
struct Args {
    command: String,
    flags: HashMap<String, String>,
}

impl Args {
    fn parse() -> Result<Args> {
        let (mut command, mut flags) = (None, HashMap::new());
        let mut it = std::env::args().skip(1);
        while let Some(arg) = it.next() {
            match arg.strip_prefix("--") {
                Some(flag) => {
                    let value = it.next().ok_or(format!("--{flag} needs a value"))?;
                    flags.insert(flag.to_string(), value);
                }
                None => command = Some(arg),
            }
        }
        let command = command.ok_or(format!("a command is required: {COMMANDS}"))?;
        for needed in ["db", "store"] {
            if !flags.contains_key(needed) {
                return Err(format!("--{needed} is required").into());
            }
        }
        Ok(Args { command, flags })
    }

    fn number(&self, flag: &str, default: u64) -> Result<u64> {
        match self.flags.get(flag) {
            None => Ok(default),
            Some(v) => Ok(v
                .parse()
                .map_err(|_| format!("--{flag} takes a whole number, not {v:?}"))?),
        }
    }
}

/// Opens a store directory (or reaches it through its socket when served),
/// or connects to an address.
async fn open_store(target: &str) -> tinystore::Result<Store> {
    if ["unix:", "tcp://", "etcd://"]
        .iter()
        .any(|p| target.starts_with(p))
    {
        Store::connect(target).await
    } else {
        Store::open(target).await
    }
}

/// Leader A pauses past its TTL; B leads with a larger term and runs the
/// job; A wakes, runs it with its old term, and is refused.
async fn scene(store: &Store, db: &Path, ttl: Duration) -> Result<bool> {
    let conn = jobs_db::open(db)?;
    let election = store.election("scheduler");
    let a = election
        .clone()
        .ttl(ttl)
        .renew(false)
        .campaign("worker-a")
        .await?;
    println!(
        "1. Worker A leads with term {} and pauses past its ttl of {}ms.",
        a.fence(),
        ttl.as_millis()
    );
    let pause = tokio::time::sleep(2 * ttl);
    let (b_term, b_changed) = election
        .lead("worker-b", async |b| -> Result<_> {
            Ok((b.fence(), jobs_db::run_job(&conn, b.value(), b.fence())?))
        })
        .await?;
    pause.await;
    println!("2. A's leadership ran out. Worker B leads with term {b_term} and runs the job: {b_changed} row changed.");
    let a_changed = jobs_db::run_job(&conn, a.value(), a.fence())?;
    let outcome = match a_changed {
        0 => "refused, 0 rows changed",
        _ => "ACCEPTED (the term failed)",
    };
    println!(
        "3. A wakes and runs the job with term {}: {outcome}.",
        a.fence()
    );
    let told = match a.resign().await {
        Ok(()) => "nothing".to_string(),
        Err(err) => err.code().to_string(),
    };
    println!("4. A learns it no longer leads: {told}.");
    println!("jobs.db keeps: {}", jobs_db::kept(&conn)?);
    Ok(a_changed == 0 && b_changed == 1 && told == Code::LeaseLost.to_string())
}

/// `workers` campaign in turn (`campaign` and `resign`, the steps `lead`
/// takes, so a waiting campaign can be given up); each leader runs the job
/// `ticks` times in its term, then resigns, until `terms` leaders have led: the last one
/// gives up the campaigns still waiting (they never lead) before it
/// resigns. An observer prints each change of leader.
async fn run(store: &Store, db: &Path, workers: u64, terms: u64, ticks: u64) -> Result<bool> {
    let election = store.election("scheduler");
    let mut observer = election.observe().await?;
    let (stop_watching, mut watch_stopped) = watch::channel(false);
    let watching = tokio::spawn(async move {
        loop {
            let change = tokio::select! {
                change = observer.next() => change,
                _ = watch_stopped.wait_for(|s| *s) => None,
            };
            match change {
                Some(Ok(Some(leader))) => println!("LEADER {} {}", leader.value, leader.fence),
                Some(Ok(None)) => println!("LEADER -"),
                Some(Err(err)) => eprintln!("scheduler: the observer ended: {err}"),
                None => return,
            }
        }
    });
    let ran = Arc::new(Mutex::new(Vec::new()));
    let (give_up, campaigns) = watch::channel(false);
    let (stopped, workers_stopped) = mpsc::channel::<()>(workers as usize);
    let workers_stopped = Arc::new(tokio::sync::Mutex::new(workers_stopped));
    let mut tasks = Vec::new();
    for w in 1..=workers {
        let (election, ran, db) = (election.clone(), ran.clone(), db.to_path_buf());
        let (give_up, mut campaigns, stopped) =
            (give_up.clone(), campaigns.clone(), stopped.clone());
        let workers_stopped = workers_stopped.clone();
        tasks.push(tokio::spawn(async move {
            // A connection is Send, not Sync: the task's future holds it
            // across awaits, so it goes behind a mutex.
            let conn = Mutex::new(jobs_db::open(&db)?);
            let value = format!("worker-{w}");
            while !*campaigns.borrow() {
                let l = tokio::select! {
                    won = election.campaign(&value) => won?,
                    // The campaign is dropped: given up, it never leads.
                    _ = campaigns.wait_for(|g| *g) => break,
                };
                for _ in 0..ticks {
                    let changed = jobs_db::run_job(&conn.lock().unwrap(), l.value(), l.fence())?;
                    println!("RAN {} {} {changed}", l.value(), l.fence());
                    let done = {
                        let mut ran = ran.lock().unwrap();
                        ran.push(changed);
                        ran.len() as u64 >= terms * ticks
                    };
                    if done {
                        // Before resigning: the campaigns waiting are given
                        // up, and never lead.
                        give_up.send_replace(true);
                        let mut workers_stopped = workers_stopped.lock().await;
                        for _ in 1..workers {
                            workers_stopped.recv().await;
                        }
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                l.resign().await?;
            }
            let _ = stopped.send(()).await;
            Ok::<(), Box<dyn Error + Send + Sync>>(())
        }));
    }
    drop(stopped);
    for task in tasks {
        task.await??;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    stop_watching.send_replace(true);
    watching.await?;
    println!("jobs.db keeps: {}", jobs_db::kept(&jobs_db::open(db)?)?);
    let ran = ran.lock().unwrap();
    Ok(ran.len() as u64 == terms * ticks && ran.iter().all(|&c| c == 1))
}

/// For tests across processes: leads, prints `LEADING <term>`, waits for a
/// line on stdin, runs the job (whether or not it still leads: the term is
/// what refuses a late run), prints `RAN <rows changed> <term>`, then
/// resigns and prints `RESIGNED ok` or `RESIGNED <error code>`.
///
/// It campaigns and resigns by hand rather than through `lead`, which would
/// stop its body at the loss: this plays a leader that goes on late, as a
/// paused process does, to show its term refused.
async fn lead_and_run(store: &Store, db: &Path, value: &str, ttl: Duration) -> Result<()> {
    let conn = jobs_db::open(db)?;
    let l = store.election("scheduler").ttl(ttl).campaign(value).await?;
    println!("LEADING {}", l.fence());
    tokio::task::spawn_blocking(|| std::io::stdin().read_line(&mut String::new())).await??;
    println!(
        "RAN {} {}",
        jobs_db::run_job(&conn, value, l.fence())?,
        l.fence()
    );
    match l.resign().await {
        Ok(()) => println!("RESIGNED ok"),
        Err(err) => println!("RESIGNED {}", err.code()),
    }
    Ok(())
}

async fn main1() -> Result<bool> {
    let args = Args::parse()?;
    let db = PathBuf::from(&args.flags["db"]);
    jobs_db::open(&db)?;
    let store = open_store(&args.flags["store"]).await?;
    let millis = |flag, default| args.number(flag, default).map(Duration::from_millis);
    let outcome = match args.command.as_str() {
        "scene" => scene(&store, &db, millis("ttl-ms", 300)?).await,
        "run" => {
            let (workers, terms, ticks) = (
                args.number("workers", 3)?,
                args.number("terms", 5)?,
                args.number("ticks", 2)?,
            );
            run(&store, &db, workers, terms, ticks).await
        }
        "lead-and-run" => {
            let value = args.flags.get("value").map_or("rust", String::as_str);
            let ttl = millis("ttl-ms", 15_000)?;
            lead_and_run(&store, &db, value, ttl).await.map(|()| true)
        }
        other => Err(format!("unknown command {other:?}: {COMMANDS}").into()),
    };
    store.close().await?;
    outcome
}

#[tokio::main]
async fn main() -> ExitCode {
    match main1().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("scheduler: {err}");
            ExitCode::from(2)
        }
    }
}
