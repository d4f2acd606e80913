//! The SQL guard on real SQLite files (rusqlite): every guard case of
//! vectors/behaviour.json, a refusal rolling back the caller's own write,
//! and a call outside a transaction refused.
#![cfg(feature = "guard-sqlite")]

use rusqlite::{Connection, OptionalExtension};
use tinystore::guard::rusqlite::{check, ensure};
use tinystore::{Code, Fence};

fn open(dir: &tempfile::TempDir) -> Connection {
    let db = Connection::open(dir.path().join("app.db")).unwrap();
    db.execute_batch("create table notes(resource text, fence text)")
        .unwrap();
    db
}

fn register(db: &Connection, resource: &str) -> Option<String> {
    db.query_row(
        "select fence from tinystore_fences where resource = ?1",
        [resource],
        |r| r.get(0),
    )
    .optional()
    .unwrap()
}

#[test]
fn every_guard_vector_holds_on_sqlite() {
    for case in crate::guard::support::cases() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = open(&dir);
        if case.table {
            ensure(&db).unwrap();
            ensure(&db).unwrap(); // ensure is safe to run again
        }
        if let Some(text) = &case.recorded {
            db.execute(
                "insert into tinystore_fences values ('chats/42', ?1)",
                [text],
            )
            .unwrap();
        }
        let tx = db.transaction().unwrap();
        tx.execute(
            "insert into notes values (?1, ?2)",
            (&case.resource, case.fence.text()),
        )
        .unwrap();
        let outcome = check(&tx, &case.resource, case.fence);
        if outcome.is_ok() {
            tx.commit().unwrap()
        } else {
            tx.rollback().unwrap()
        }
        let notes: i64 = db
            .query_row("select count(*) from notes", [], |r| r.get(0))
            .unwrap();
        let register = if case.table {
            register(&db, &case.resource)
        } else {
            None
        };
        case.judge(outcome, notes, register);
    }
}

#[test]
fn a_check_outside_a_transaction_is_invalid_and_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(&dir);
    ensure(&db).unwrap();
    let err = check(&db, "chats/42", Fence::from_u128(7)).unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("transaction"), "{err}");
    assert_eq!(register(&db, "chats/42"), None);
}

#[test]
fn a_lease_writes_twice_and_a_later_lease_shuts_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = open(&dir);
    ensure(&db).unwrap();
    let mut write = |fence: u128| {
        let tx = db.transaction().unwrap();
        let outcome = check(&tx, "chats/42", Fence::from_u128(fence));
        tx.commit().unwrap();
        outcome.map_err(|e| e.code())
    };
    assert_eq!(write(5), Ok(()));
    assert_eq!(write(5), Ok(()));
    assert_eq!(write(6), Ok(()));
    assert_eq!(write(5), Err(Code::Stale));
    assert_eq!(write(6), Ok(()));
}
