//! The sqlite column: a SQLite file in WAL mode, through rusqlite.

use super::{fence_of, judge, unique, Backend};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;
use tinystore::guard::rusqlite::{check, ensure};
use tinystore::Fence;

pub struct Sqlite {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    db: Connection,
    resource: String,
}

impl Sqlite {
    pub fn new(scenario: &str) -> Sqlite {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.db");
        let db = Connection::open(&path).unwrap();
        db.execute_batch("PRAGMA journal_mode = WAL").unwrap();
        ensure(&db).unwrap();
        Sqlite {
            _dir: dir,
            path,
            db,
            resource: unique(scenario),
        }
    }

    /// A write in its own transaction: committed when accepted.
    fn write(db: &mut Connection, resource: &str, fence: Fence) -> Result<(), tinystore::Error> {
        let tx = db.transaction().unwrap();
        check(&tx, resource, fence)?;
        tx.commit().unwrap();
        Ok(())
    }

    fn recorded(&self) -> Option<String> {
        let read = "select fence from tinystore_fences where resource = ?1";
        self.db
            .query_row(read, [&self.resource], |r| r.get(0))
            .optional()
            .unwrap()
    }
}

impl Backend for Sqlite {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let r = self.resource.clone();
        let expect = &step["expect"];
        if step.get("write").is_some() {
            let f = fence_of(step, "write");
            return judge(Sqlite::write(&mut self.db, &r, f), expect, &r, f);
        }
        if step.get("recorded").is_some() {
            let want = fence_of(step, "recorded").text();
            return match self.recorded() {
                Some(got) if got == want => Ok(()),
                got => Err(format!("recorded {got:?}, expected {want}")),
            };
        }
        if step.get("corrupt").is_some() {
            let edit = "update tinystore_fences set fence = 'not-a-fence' where resource = ?1";
            self.db.execute(edit, [&r]).unwrap();
            return Ok(());
        }
        if step.get("drop_register").is_some() {
            self.db
                .execute_batch("drop table tinystore_fences")
                .unwrap();
            return Ok(());
        }
        if step.get("outside_transaction").is_some() {
            let f = fence_of(step, "outside_transaction");
            let outcome = check(&self.db, &r, f);
            return judge(outcome, expect, &r, f).and_then(|()| match self.recorded() {
                None => Ok(()),
                Some(got) => Err(format!("a check outside a transaction recorded {got}")),
            });
        }
        if step.get("serialization").is_some() {
            let f = fence_of(step, "serialization");
            let between = Fence::parse(step["serialization"]["between"].as_str().unwrap()).unwrap();
            // A takes its snapshot; B writes and commits; A's check then
            // cannot write over B's (SQLITE_BUSY_SNAPSHOT).
            self.db.execute_batch("BEGIN").unwrap();
            self.db
                .query_row("select count(*) from tinystore_fences", [], |r| {
                    r.get::<_, i64>(0)
                })
                .unwrap();
            let mut b = Connection::open(&self.path).unwrap();
            Sqlite::write(&mut b, &r, between).map_err(|e| format!("the writer between: {e}"))?;
            let outcome = check(&self.db, &r, f);
            self.db.execute_batch("ROLLBACK").unwrap();
            return judge(outcome, expect, &r, f);
        }
        if step.get("permission").is_some() {
            let f = fence_of(step, "permission");
            let mut reader =
                Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
            return judge(Sqlite::write(&mut reader, &r, f), expect, &r, f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
                judge(Sqlite::write(&mut self.db, &bad, f), expect, &bad, f)
                    .map_err(|why| format!("{bad:?}: {why}"))?;
            }
            let rows: i64 = self
                .db
                .query_row("select count(*) from tinystore_fences", [], |r| r.get(0))
                .unwrap();
            return if rows == 0 {
                Ok(())
            } else {
                Err(format!("{rows} rows recorded"))
            };
        }
        Err(format!("the sqlite column has no step {step}"))
    }
}
