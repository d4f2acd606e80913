//! Late writes refused by guards, told to the store: a real SQLite guard
//! given the lease itself refuses a stale write and tells the lease's
//! store, whose status counts it per group, embedded and served
//! in-process; given only the fence, it tells nobody; a served store that
//! is gone never fails nor blocks the refusal.
#![cfg(feature = "guard-sqlite")]

use rusqlite::Connection;
use tinystore::guard::rusqlite::{check, ensure};
use tinystore::{Code, Lease, RefusedStatus, Store};

/// A lease on `orders/42` overtaken by a newer one: the old lease, still a
/// `Lease`, now writes late. The newer lease has written first.
async fn overtaken(store: &Store, db: &mut Connection) -> (Lease, Lease) {
    let orders = store.locks("orders");
    let old = orders.acquire("42").await.unwrap();
    old.release().await.unwrap();
    let new = orders.acquire("42").await.unwrap();
    let tx = db.transaction().unwrap();
    check(&tx, "orders/42", &new).unwrap();
    tx.commit().unwrap();
    (old, new)
}

fn late_write(db: &mut Connection, under: &Lease) -> tinystore::Error {
    let tx = db.transaction().unwrap();
    check(&tx, "orders/42", under).unwrap_err()
}

fn counted(refused: u64) -> Vec<RefusedStatus> {
    vec![RefusedStatus {
        name: "orders".into(),
        kind: "lock".into(),
        refused,
    }]
}

/// Polls status until its count of refusals is `want` (a served store
/// counts a message that comes after the guard's answer).
async fn status_counts(store: &Store, want: Vec<RefusedStatus>) {
    for _ in 0..500 {
        if store.status().await.unwrap().late_writes_refused == want {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(store.status().await.unwrap().late_writes_refused, want);
}

async fn refusals_are_counted_per_group(store: &Store, dir: &tempfile::TempDir) {
    let mut db = Connection::open(dir.path().join("app.db")).unwrap();
    ensure(&db).unwrap();
    assert!(store.status().await.unwrap().late_writes_refused.is_empty());
    let (old, _new) = overtaken(store, &mut db).await;

    // Given the lease: refused, and told.
    let err = late_write(&mut db, &old);
    assert_eq!(err.code(), Code::Stale, "{err}");
    status_counts(store, counted(1)).await;
    late_write(&mut db, &old);
    status_counts(store, counted(2)).await;

    // Given only its fence: refused the same, told to nobody.
    let tx = db.transaction().unwrap();
    let err = check(&tx, "orders/42", old.fence()).unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    drop(tx);
    // A refusal in another group, told after it, is counted apart: once
    // it shows, the fence-only refusal before it would have too.
    let other = store.locks("invoices");
    let old_invoice = other.acquire("7").await.unwrap();
    old_invoice.release().await.unwrap();
    let new_invoice = other.acquire("7").await.unwrap();
    let tx = db.transaction().unwrap();
    check(&tx, "invoices/7", &new_invoice).unwrap();
    tx.commit().unwrap();
    let tx = db.transaction().unwrap();
    assert_eq!(
        check(&tx, "invoices/7", &old_invoice).unwrap_err().code(),
        Code::Stale
    );
    drop(tx);
    let mut want = vec![RefusedStatus {
        name: "invoices".into(),
        kind: "lock".into(),
        refused: 1,
    }];
    want.extend(counted(2));
    status_counts(store, want).await;
}

#[tokio::test]
async fn an_embedded_store_counts_the_late_writes_its_leases_report() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).await.unwrap();
    refusals_are_counted_per_group(&store, &dir).await;
}

#[tokio::test]
async fn a_served_store_counts_the_late_writes_its_clients_report() {
    let (dir, _server, address) = crate::support::served::served().await;
    let store = Store::connect(&address).await.unwrap();
    refusals_are_counted_per_group(&store, &dir).await;
}

#[tokio::test]
async fn a_refusal_under_a_lease_whose_server_is_gone_is_still_refused() {
    let (dir, server, address) = crate::support::served::served().await;
    let store = Store::connect(&address).await.unwrap();
    let mut db = Connection::open(dir.path().join("app.db")).unwrap();
    ensure(&db).unwrap();
    let (old, _new) = overtaken(&store, &mut db).await;
    server.shutdown().await.unwrap();
    // The connection is gone: the refusal is the guard's alone.
    let err = late_write(&mut db, &old);
    assert_eq!(err.code(), Code::Stale, "{err}");
    old.report_refused("orders/42");
}
