//! The SQL guard on a real PostgreSQL (tokio-postgres), at
//! `$TINYSTORE_PG_URL` (tests/guards/with-postgres.sh starts one): every
//! guard case of vectors/behaviour.json, and two writers of one resource at
//! READ COMMITTED (the second waits for the first's commit, then the rule
//! decides) and at SERIALIZABLE (the second fails and retries).
//! Without the variable these tests skip, unless `TINYSTORE_REQUIRE_PG=1`
//! (as `make test` sets), where they fail.
#![cfg(feature = "guard-postgres")]

use std::time::Duration;
use tinystore::guard::postgres::{check, ensure};
use tinystore::{Code, Fence};
use tokio_postgres::{Client, IsolationLevel, NoTls};

/// A client on a schema of its own (dropped first if a run left it), so
/// that tests running at once do not share tables; `None` when no server.
async fn connect(schema: &str) -> Option<Client> {
    let Ok(url) = std::env::var("TINYSTORE_PG_URL") else {
        assert!(
            std::env::var("TINYSTORE_REQUIRE_PG").as_deref() != Ok("1"),
            "TINYSTORE_PG_URL is not set: run under tests/guards/with-postgres.sh"
        );
        eprintln!("skipped: TINYSTORE_PG_URL is not set");
        return None;
    };
    let (client, connection) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "drop schema if exists {schema} cascade; create schema {schema}; set search_path to {schema}"
        ))
        .await
        .unwrap();
    Some(client)
}

/// A second client on the same schema.
async fn join(schema: &str) -> Client {
    let url = std::env::var("TINYSTORE_PG_URL").unwrap();
    let (client, connection) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("set search_path to {schema}"))
        .await
        .unwrap();
    client
}

async fn serializable(
    c: &mut Client,
) -> Result<tokio_postgres::Transaction<'_>, tokio_postgres::Error> {
    c.build_transaction()
        .isolation_level(IsolationLevel::Serializable)
        .start()
        .await
}

async fn register(db: &Client, resource: &str) -> Option<String> {
    db.query_opt(
        "select fence from tinystore_fences where resource = $1",
        &[&resource],
    )
    .await
    .unwrap()
    .map(|row| row.get(0))
}

#[tokio::test]
async fn every_guard_vector_holds_on_postgres() {
    let Some(mut db) = connect("guard_vectors").await else {
        return;
    };
    for case in crate::guard::support::cases() {
        db.batch_execute("drop table if exists tinystore_fences, notes; create table notes(resource text, fence text)")
            .await
            .unwrap();
        if case.table {
            ensure(&db).await.unwrap();
            ensure(&db).await.unwrap(); // ensure is safe to run again
        }
        if let Some(text) = &case.recorded {
            db.execute(
                "insert into tinystore_fences values ('chats/42', $1)",
                &[text],
            )
            .await
            .unwrap();
        }
        let tx = db.transaction().await.unwrap();
        tx.execute(
            "insert into notes values ($1, $2)",
            &[&case.resource, &case.fence.text()],
        )
        .await
        .unwrap();
        let outcome = check(&tx, &case.resource, case.fence).await;
        if outcome.is_ok() {
            tx.commit().await.unwrap()
        } else {
            tx.rollback().await.unwrap()
        }
        let notes: i64 = db
            .query_one("select count(*) from notes", &[])
            .await
            .unwrap()
            .get(0);
        let register = if case.table {
            register(&db, &case.resource).await
        } else {
            None
        };
        case.judge(outcome, notes, register);
    }
}

#[tokio::test]
async fn at_read_committed_the_second_writer_waits_for_the_first_commit() {
    let Some(mut first) = connect("guard_read_committed").await else {
        return;
    };
    ensure(&first).await.unwrap();
    let mut second = join("guard_read_committed").await;
    let tx1 = first.transaction().await.unwrap();
    check(&tx1, "chats/42", Fence::from_u128(9)).await.unwrap();
    // The second writer, with a smaller fence, blocks on the row's lock...
    let late = tokio::spawn(async move {
        let tx2 = second.transaction().await.unwrap();
        let outcome = check(&tx2, "chats/42", Fence::from_u128(8)).await;
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
    assert_eq!(
        register(&first, "chats/42").await.as_deref(),
        Some(Fence::from_u128(9).text().as_str())
    );
}

#[tokio::test]
async fn at_serializable_the_second_writer_fails_and_its_retry_decides_by_the_rule() {
    let Some(mut first) = connect("guard_serializable").await else {
        return;
    };
    ensure(&first).await.unwrap();
    first
        .execute(
            "insert into tinystore_fences values ('chats/42', $1)",
            &[&Fence::from_u128(5).text()],
        )
        .await
        .unwrap();
    let mut second = join("guard_serializable").await;
    let tx1 = serializable(&mut first).await.unwrap();
    let tx2 = serializable(&mut second).await.unwrap();
    // Both read the row in their snapshots before either writes.
    tx2.query_one("select fence from tinystore_fences", &[])
        .await
        .unwrap();
    check(&tx1, "chats/42", Fence::from_u128(9)).await.unwrap();
    tx1.commit().await.unwrap();
    let err = check(&tx2, "chats/42", Fence::from_u128(7))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(err.message().contains("retry"), "{err}");
    tx2.rollback().await.unwrap();
    // The retry, in a new transaction, sees fence 9: refused by the rule.
    let retry = serializable(&mut second).await.unwrap();
    let err = check(&retry, "chats/42", Fence::from_u128(7))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale, "{err}");
}

#[tokio::test]
async fn a_missing_table_is_invalid_saying_how_to_make_it() {
    let Some(mut db) = connect("guard_missing").await else {
        return;
    };
    let tx = db.transaction().await.unwrap();
    let err = check(&tx, "chats/42", Fence::from_u128(7))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(
        err.message().contains("tinystore_fences") && err.message().contains("ensure"),
        "{err}"
    );
}
