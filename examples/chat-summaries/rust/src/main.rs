//! chat-summaries in Rust: summary workers that hold `summaries` for a chat
//! and save with the fenced conditional update. See ../README.md for the
//! commands, which every language's program shares.

mod chat_db;
mod chat_pg;
mod torture;
mod torture_ways;

use std::collections::HashMap;
use std::error::Error;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tinystore::blocking::Store;

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

struct Args {
    db: PathBuf,
    store: String,
    command: String,
    flags: HashMap<String, String>,
}

fn parse_args() -> Result<Args> {
    let mut db = None;
    let mut store = None;
    let mut command = None;
    let mut flags = HashMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.strip_prefix("--") {
            Some(flag) => {
                let value = it.next().ok_or(format!("--{flag} needs a value"))?;
                match flag {
                    "db" => db = Some(PathBuf::from(value)),
                    "store" => store = Some(value),
                    _ => {
                        flags.insert(flag.to_string(), value);
                    }
                }
            }
            None => command = Some(arg),
        }
    }
    Ok(Args {
        db: db.unwrap_or_default(),
        store: store.unwrap_or_default(),
        command: command
            .ok_or("a command is required: migrate, work, scene, hold-and-save, torture, fences")?,
        flags,
    })
}

impl Args {
    /// `--save guard`: saves go through the guard (docs/guards.md);
    /// `--save column` (the default): the fenced update of docs/fences.md.
    fn guarded(&self) -> Result<bool> {
        match self.flags.get("save").map(String::as_str) {
            None | Some("column") => Ok(false),
            Some("guard") => Ok(true),
            Some(other) => Err(format!("--save takes column or guard, not {other:?}").into()),
        }
    }

    fn number(&self, flag: &str, default: i64) -> Result<i64> {
        match self.flags.get(flag) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{flag} takes a whole number, not {v:?}").into()),
        }
    }
}

/// A store directory is opened (or reached through its socket when served);
/// an address is connected to.
fn open_store(target: &str) -> tinystore::Result<Store> {
    if ["unix:", "tcp://", "tls://", "etcd://"]
        .iter()
        .any(|p| target.starts_with(p))
    {
        Store::connect(target)
    } else {
        Store::open(target)
    }
}

fn summarize(history: &[String], by: &str) -> String {
    format!("{} messages, summarized by {by}", history.len())
}

fn work(args: &Args, store: &Store) -> Result<()> {
    let chats = args.number("chats", 5)?;
    let workers = args.number("workers", 3)?;
    let rounds = args.number("rounds", 2)?;
    chat_db::seed(&chat_db::open(&args.db)?, chats)?;
    std::thread::scope(|s| -> Result<()> {
        let mut handles = Vec::new();
        for w in 0..workers {
            let summaries = store.locks("summaries");
            let db = args.db.clone();
            handles.push(s.spawn(move || -> Result<()> {
                let conn = chat_db::open(&db)?;
                for round in 0..rounds {
                    for chat in 1..=chats {
                        summaries.hold(chat, |lease| -> Result<()> {
                            let summary =
                                summarize(&chat_db::history(&conn, chat)?, &format!("worker {w}"));
                            let fence = format!("{:040}", lease.fence().get());
                            let changed = chat_db::save(&conn, chat, &summary, &fence)?;
                            println!(
                                "worker {w} round {round} chat {chat}: fence {} saved {changed}",
                                lease.fence()
                            );
                            Ok(())
                        })?;
                    }
                }
                Ok(())
            }));
        }
        for h in handles {
            h.join().map_err(|_| "a worker panicked")??;
        }
        Ok(())
    })
}

/// Where the chats are: a SQLite file, or PostgreSQL for a `postgresql://`
/// `--db` (scene and hold-and-save only).
enum Chats {
    Sqlite(rusqlite::Connection),
    Postgres(chat_pg::ChatPg),
}

impl Chats {
    fn open(db: &std::path::Path) -> Result<Chats> {
        let text = db.to_string_lossy();
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Chats::Postgres(chat_pg::ChatPg::open(&text)?));
        }
        Ok(Chats::Sqlite(chat_db::open(db)?))
    }

    fn add_chat(&self, chat: i64) -> Result<()> {
        match self {
            Chats::Sqlite(conn) => {
                conn.execute(
                    "insert into chats (id, title) values (?1, 'chat') on conflict do nothing",
                    [chat],
                )?;
                Ok(())
            }
            Chats::Postgres(pg) => pg.add_chat(chat),
        }
    }

    /// Saves a summary the way `--save` says; the rows changed (0: refused).
    fn save(
        &mut self,
        args: &Args,
        chat: i64,
        summary: &str,
        fence: tinystore::Fence,
    ) -> Result<usize> {
        let guarded = args.guarded()?;
        match self {
            Chats::Sqlite(conn) if guarded => Ok(usize::from(chat_db::save_guarded(
                conn, chat, summary, fence,
            )?)),
            Chats::Sqlite(conn) => Ok(chat_db::save(conn, chat, summary, &fence.text())?),
            Chats::Postgres(pg) if guarded => {
                Ok(usize::from(pg.save_guarded(chat, summary, fence)?))
            }
            Chats::Postgres(pg) => pg.save_column(chat, summary, fence),
        }
    }

    /// What the chat keeps, in words.
    fn kept(&self, args: &Args, chat: i64) -> Result<String> {
        let (summary, fence) = match self {
            Chats::Sqlite(conn) if args.guarded()? => {
                let (summary, _) = chat_db::kept(conn, chat)?;
                (summary, chat_db::recorded(conn, chat)?.unwrap_or_default())
            }
            Chats::Sqlite(conn) => chat_db::kept(conn, chat)?,
            Chats::Postgres(pg) => pg.kept(chat)?,
        };
        Ok(if args.guarded()? {
            format!("{summary:?}; tinystore_fences keeps chats/{chat} = {fence}")
        } else {
            format!("{summary:?} with fence {fence}")
        })
    }
}

fn scene(args: &Args, store: &Store) -> Result<bool> {
    let mut chats = Chats::open(&args.db)?;
    chats.add_chat(42)?;
    let ttl = Duration::from_millis(args.number("ttl-ms", 300)? as u64);
    let summaries = store.locks("summaries");
    let a = summaries.clone().ttl(ttl).renew(false).acquire(42)?;
    println!(
        "1. Worker A holds chat 42 with fence {} and pauses past its ttl of {ttl:?}.",
        a.fence()
    );
    let b = std::thread::scope(|s| {
        let worker_b = s.spawn(|| -> Result<(tinystore::Fence, usize)> {
            let mut chats = Chats::open(&args.db)?;
            summaries.hold(42, |lease| -> Result<_> {
                Ok((
                    lease.fence(),
                    chats.save(args, 42, "summary by B", lease.fence())?,
                ))
            })
        });
        std::thread::sleep(ttl * 2);
        worker_b.join().map_err(|_| "worker B panicked")
    })??;
    println!(
        "2. A's lease ran out. Worker B holds chat 42 with fence {} and saves: {} row changed.",
        b.0, b.1
    );
    let a_changed = chats.save(args, 42, "summary by A", a.fence())?;
    let refusal = if args.guarded()? {
        "refused by the guard (stale), its update rolled back"
    } else {
        "refused, 0 rows changed"
    };
    println!(
        "3. A wakes and saves with fence {}: {}.",
        a.fence(),
        if a_changed == 0 {
            refusal
        } else {
            "ACCEPTED (the fence failed)"
        }
    );
    println!("chat.db keeps: {}", chats.kept(args, 42)?);
    Ok(a_changed == 0 && b.1 == 1)
}

fn hold_and_save(args: &Args, store: &Store) -> Result<()> {
    let chat = args.number("chat", 42)?;
    let mut chats = Chats::open(&args.db)?;
    chats.add_chat(chat)?;
    let ttl = Duration::from_millis(args.number("ttl-ms", 15_000)? as u64);
    let name = args.flags.get("name").map_or("summaries", String::as_str);
    let lease = store.locks(name).ttl(ttl).acquire(chat)?;
    println!("HELD {}", lease.fence());
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let changed = chats.save(args, chat, "summary by rust", lease.fence())?;
    println!("SAVED {changed} {}", lease.fence());
    match lease.release() {
        Ok(()) => println!("RELEASED ok"),
        Err(e) => println!("RELEASED {}", e.code()),
    }
    Ok(())
}

/// The fence vectors through this language's API; see ../README.md.
fn fences(args: &Args) -> Result<()> {
    let path = args
        .flags
        .get("vectors")
        .ok_or("--vectors FILE is required")?;
    let vectors: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    for case in vectors["cases"].as_array().ok_or("no cases")? {
        let fence: tinystore::Fence = text(&case["value"]).parse()?;
        println!(
            "CASE {fence} {} {} {}",
            fence.text(),
            fence.epoch(),
            fence.count()
        );
    }
    for pair in vectors["ordered"].as_array().ok_or("no ordered pairs")? {
        let a: tinystore::Fence = text(&pair[0]).parse()?;
        let b: tinystore::Fence = text(&pair[1]).parse()?;
        println!("ORDERED {a} {b} {} {}", a < b, a.text() < b.text());
    }
    for bad in vectors["invalid"].as_array().ok_or("no invalid strings")? {
        let code = match text(bad).parse::<tinystore::Fence>() {
            Ok(f) => format!("ACCEPTED:{f}"),
            Err(e) => e.code().to_string(),
        };
        println!("INVALID {bad} {code}");
    }
    Ok(())
}

fn run() -> Result<bool> {
    let args = parse_args()?;
    if args.command == "fences" {
        return fences(&args).map(|_| true);
    }
    if args.db.as_os_str().is_empty() || args.store.is_empty() {
        return Err("--db PATH and --store DIR|ADDRESS are required".into());
    }
    let on_postgres = matches!(Chats::open(&args.db)?, Chats::Postgres(_));
    if on_postgres && !["migrate", "scene", "hold-and-save"].contains(&args.command.as_str()) {
        return Err(format!(
            "{} runs on SQLite only; on PostgreSQL: migrate, scene, hold-and-save",
            args.command
        )
        .into());
    }
    if args.command == "migrate" {
        println!("migrated {}", args.db.display());
        return Ok(true);
    }
    let store = open_store(&args.store)?;
    let ok = match args.command.as_str() {
        "work" => work(&args, &store).map(|_| true)?,
        "scene" => scene(&args, &store)?,
        "hold-and-save" => hold_and_save(&args, &store).map(|_| true)?,
        "torture" => {
            let worker = args.flags.get("worker").map_or("rust", String::as_str);
            let ttl = Duration::from_millis(args.number("ttl-ms", 300)? as u64);
            let seconds = args.number("seconds", 10)? as u64;
            let pause = Duration::from_millis(args.number("pause-ms", 20)? as u64);
            let t = torture::run(
                &store,
                &args.db,
                worker,
                args.number("chats", 4)?,
                seconds,
                ttl,
                pause,
                args.flags.get("ways").is_some_and(|w| w == "all"),
            )?;
            println!(
                "DONE saves={} lost={} errors={} ways={}",
                t.saves, t.lost, t.errors, t.ways
            );
            true
        }
        other => {
            return Err(
                format!("unknown command {other:?}: migrate, work, scene, hold-and-save").into(),
            )
        }
    };
    store.close()?;
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("chat-summaries: {e}");
            ExitCode::from(2)
        }
    }
}
