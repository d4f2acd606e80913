//! The Rust snippet of the fences page, compiled and run as
//! written against `tinystore::blocking`, with the application's own pieces
//! (`AppError`, `model`, `history`, `db`, `sql!`) supplied around it. Worker A
//! pauses inside its body past its TTL; worker B takes the key and saves; A's
//! late write is refused by the conditional update in a real SQLite file.

use rusqlite::{Connection, ToSql};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;
use tinystore::blocking::{Locks, Store};

#[derive(Debug)]
#[allow(dead_code)] // the fields are read through Debug
enum AppError {
    Store(tinystore::Error),
    Db(rusqlite::Error),
}

impl From<tinystore::Error> for AppError {
    fn from(e: tinystore::Error) -> Self {
        AppError::Store(e)
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(e: rusqlite::Error) -> Self {
        AppError::Db(e)
    }
}

/// A statement and its parameters, as the application's `sql!` builds it.
struct Query {
    sql: &'static str,
    params: Vec<Box<dyn ToSql>>,
}

macro_rules! sql {
    ($sql:expr, $($param:expr),* $(,)?) => {
        Query { sql: $sql, params: vec![$(Box::new(($param).to_owned()) as Box<dyn ToSql>),*] }
    };
}

struct Db {
    path: PathBuf,
    changes: std::cell::Cell<usize>,
}

impl Db {
    fn exec(&self, query: Query) -> Result<usize, AppError> {
        let conn = Connection::open(&self.path)?;
        let params: Vec<&dyn ToSql> = query.params.iter().map(|p| p.as_ref()).collect();
        let changed = conn.execute(query.sql, params.as_slice())?;
        self.changes.set(changed);
        Ok(changed)
    }
}

struct Model {
    name: &'static str,
    pause: Duration,
    started: mpsc::Sender<()>,
}

impl Model {
    fn summarize(&self, history: &str) -> Result<String, AppError> {
        let _ = self.started.send(());
        std::thread::sleep(self.pause); // worker A: a long garbage collection
        Ok(format!("{} summarized: {history}", self.name))
    }
}

fn history(chat_id: i64) -> Result<String, AppError> {
    Ok(format!("the messages of chat {chat_id}"))
}

/// The seed's snippet, verbatim, inside a worker.
fn worker(summaries: &Locks, model: &Model, db: &Db, chat_id: i64) -> Result<(), AppError> {
    summaries.hold(chat_id, |lease| -> Result<(), AppError> {
        let summary = model.summarize(&history(chat_id)?)?;
        let fence = format!("{:040}", lease.fence().get());
        db.exec(sql!(
            "update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?",
            summary,
            &fence,
            chat_id,
            &fence
        ))?;
        Ok(())
    })?;
    Ok(())
}

fn make_chat_db(path: &Path) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "create table chats (id integer primary key, summary text not null default '');
         alter table chats add column summary_fence text not null default '';
         insert into chats (id) values (42);",
    )
    .unwrap();
}

#[test]
fn a_late_holder_write_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let chat_db = tmp.path().join("chat.db");
    make_chat_db(&chat_db);
    let store = Store::open(tmp.path().join("store")).unwrap();
    let chat_id: i64 = 42;

    let (a_started, a_in_body) = mpsc::channel();
    let a_locks = store
        .locks("summaries")
        .ttl(Duration::from_millis(150))
        .renew(false);
    let a_path = chat_db.clone();
    let worker_a = std::thread::spawn(move || {
        let model = Model {
            name: "A",
            pause: Duration::from_millis(600),
            started: a_started,
        };
        let db = Db {
            path: a_path,
            changes: Default::default(),
        };
        let result = worker(&a_locks, &model, &db, chat_id);
        (result, db.changes.get())
    });
    a_in_body.recv().unwrap();

    let (b_started, _b_in_body) = mpsc::channel();
    let model = Model {
        name: "B",
        pause: Duration::ZERO,
        started: b_started,
    };
    let db = Db {
        path: chat_db.clone(),
        changes: Default::default(),
    };
    worker(&store.locks("summaries"), &model, &db, chat_id).unwrap();
    assert_eq!(db.changes.get(), 1, "B's write is accepted");

    let (a_result, a_changes) = worker_a.join().unwrap();
    assert_eq!(a_changes, 0, "A's late write is refused by the fence");
    match a_result {
        Err(AppError::Store(e)) => assert_eq!(e.code(), tinystore::Code::LeaseLost),
        other => panic!("A learns its lease was lost, not {other:?}"),
    }

    let conn = Connection::open(&chat_db).unwrap();
    let (summary, fence): (String, String) = conn
        .query_row(
            "select summary, summary_fence from chats where id = 42",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(summary.starts_with("B summarized"), "{summary}");
    assert_eq!(fence.len(), 40);
    let kept: tinystore::Fence = fence.parse().unwrap();
    assert_eq!(kept.count(), 2, "B's fence, the second lease of this open");
}
