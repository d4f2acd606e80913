//! The SQL guard on a real MariaDB (mysql_async), at `$TINYSTORE_MYSQL_URL`
//! (tests/guards/with-mariadb.sh starts one): every guard case of
//! vectors/behaviour.json with and without found rows, two writers of one
//! resource (the second waits for the first's commit, then the rule
//! decides), a transaction whose snapshot is older than the recorded fence,
//! a caller who may only read the register, and the connection killed.
//! Without the variable these tests skip, unless `TINYSTORE_REQUIRE_MYSQL=1`
//! (as `make test` sets), where they fail.
#![cfg(feature = "guard-mysql")]

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, TxOpts};
use std::error::Error as _;
use std::time::Duration;
use tinystore::guard::mysql::{check, ensure};
use tinystore::{guard, Code, Fence};

fn url() -> Option<String> {
    match std::env::var("TINYSTORE_MYSQL_URL") {
        Ok(url) => Some(url),
        Err(_) => {
            assert!(
                std::env::var("TINYSTORE_REQUIRE_MYSQL").as_deref() != Ok("1"),
                "TINYSTORE_MYSQL_URL is not set: run under tests/guards/with-mariadb.sh"
            );
            eprintln!("skipped: TINYSTORE_MYSQL_URL is not set");
            None
        }
    }
}

/// Options on a database of this test's own (made afresh).
async fn database(name: &str) -> Option<OptsBuilder> {
    let url = url()?;
    let opts = Opts::from_url(&url).unwrap();
    let mut admin = Conn::new(opts.clone()).await.unwrap();
    admin
        .query_drop(format!(
            "drop database if exists {name}; create database {name}"
        ))
        .await
        .unwrap();
    admin.disconnect().await.unwrap();
    Some(OptsBuilder::from_opts(opts).db_name(Some(name)))
}

async fn register(conn: &mut Conn, resource: &str) -> Option<String> {
    conn.exec_first(
        "select fence from tinystore_fences where resource = ?",
        (resource,),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn every_guard_vector_holds_with_and_without_found_rows() {
    let Some(opts) = database("guard_vectors").await else {
        return;
    };
    for found_rows in [false, true] {
        let mut db = Conn::new(opts.clone().client_found_rows(found_rows))
            .await
            .unwrap();
        for case in crate::guard::support::cases() {
            db.query_drop("drop table if exists tinystore_fences, notes; create table notes(resource varbinary(2048), fence text) engine=InnoDB")
                .await
                .unwrap();
            if case.table {
                ensure(&mut db).await.unwrap();
                ensure(&mut db).await.unwrap(); // ensure is safe to run again
            }
            if let Some(text) = &case.recorded {
                db.exec_drop(
                    "insert into tinystore_fences values ('chats/42', ?)",
                    (text,),
                )
                .await
                .unwrap();
            }
            let mut tx = db.start_transaction(TxOpts::default()).await.unwrap();
            tx.exec_drop(
                "insert into notes values (?, ?)",
                (&case.resource, case.fence.text()),
            )
            .await
            .unwrap();
            let outcome = check(&mut tx, &case.resource, case.fence).await;
            if outcome.is_ok() {
                tx.commit().await.unwrap()
            } else {
                tx.rollback().await.unwrap()
            }
            let notes: i64 = db
                .query_first("select count(*) from notes")
                .await
                .unwrap()
                .unwrap();
            let recorded = if case.table {
                register(&mut db, &case.resource).await
            } else {
                None
            };
            eprintln!("found rows {found_rows}: case {}", case.id);
            case.judge(outcome, notes, recorded);
        }
    }
}

#[tokio::test]
async fn the_second_writer_waits_for_the_first_commit_then_the_rule_decides() {
    let Some(opts) = database("guard_two_writers").await else {
        return;
    };
    let mut first = Conn::new(opts.clone()).await.unwrap();
    ensure(&mut first).await.unwrap();
    let mut tx1 = first.start_transaction(TxOpts::default()).await.unwrap();
    check(&mut tx1, "chats/42", Fence::from_u128(9))
        .await
        .unwrap();
    // The second writer, with a smaller fence, blocks on the row's lock...
    let late = tokio::spawn(async move {
        let mut second = Conn::new(opts).await.unwrap();
        let mut tx2 = second.start_transaction(TxOpts::default()).await.unwrap();
        let outcome = check(&mut tx2, "chats/42", Fence::from_u128(8)).await;
        tx2.rollback().await.unwrap();
        outcome
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !late.is_finished(),
        "the second writer did not wait for the first"
    );
    // ...until the first commits; then it sees fence 9 and is refused.
    tx1.commit().await.unwrap();
    let err = late.await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
    assert_eq!(err.stale_detail().unwrap().largest, 9);
}

#[tokio::test]
async fn an_older_snapshot_still_compares_with_the_committed_fence() {
    let Some(opts) = database("guard_snapshot").await else {
        return;
    };
    let mut first = Conn::new(opts.clone()).await.unwrap();
    ensure(&mut first).await.unwrap();
    let mut other = Conn::new(opts.clone()).await.unwrap();
    for found_rows in [false, true] {
        let resource = format!("chats/{found_rows}");
        let mut conn = Conn::new(opts.clone().client_found_rows(found_rows))
            .await
            .unwrap();
        // At REPEATABLE READ (InnoDB's default) the first read takes the
        // snapshot: the register has no row for the resource in it.
        let mut tx = conn.start_transaction(TxOpts::default()).await.unwrap();
        let _: Option<String> = tx
            .query_first("select fence from tinystore_fences limit 1")
            .await
            .unwrap();
        let mut later = other.start_transaction(TxOpts::default()).await.unwrap();
        check(&mut later, &resource, Fence::from_u128(9))
            .await
            .unwrap();
        later.commit().await.unwrap();
        let err = check(&mut tx, &resource, Fence::from_u128(7))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::Stale, "found rows {found_rows}: {err}");
        assert_eq!(err.stale_detail().unwrap().largest, 9);
        tx.rollback().await.unwrap();
    }
}

#[tokio::test]
async fn a_caller_who_may_only_read_is_unauthorized_with_the_servers_error() {
    let Some(opts) = database("guard_reader").await else {
        return;
    };
    let mut admin = Conn::new(opts.clone()).await.unwrap();
    ensure(&mut admin).await.unwrap();
    admin
        .query_drop(
            "create user if not exists 'tinystore_reader'@'127.0.0.1'; \
             grant select on guard_reader.tinystore_fences to 'tinystore_reader'@'127.0.0.1'",
        )
        .await
        .unwrap();
    let reader = opts.user(Some("tinystore_reader")).pass(None::<String>);
    let mut conn = Conn::new(reader).await.unwrap();
    let mut tx = conn.start_transaction(TxOpts::default()).await.unwrap();
    let err = check(&mut tx, "chats/42", Fence::from_u128(7))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    assert!(err
        .source()
        .and_then(|c| c.downcast_ref::<mysql_async::Error>())
        .is_some());
}

#[tokio::test]
async fn a_killed_connection_is_unavailable_and_a_deadlock_a_serialization_failure() {
    let Some(opts) = database("guard_killed").await else {
        return;
    };
    let mut admin = Conn::new(opts.clone()).await.unwrap();
    ensure(&mut admin).await.unwrap();
    let mut conn = Conn::new(opts.clone()).await.unwrap();
    let id = conn.id();
    let mut tx = conn.start_transaction(TxOpts::default()).await.unwrap();
    admin.query_drop(format!("kill {id}")).await.unwrap();
    let err = check(&mut tx, "chats/42", Fence::from_u128(7))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(!guard::is_serialization_failure(&err));
}
