//! What a guard costs per write: a write transaction alone, the same with
//! one more statement (an upsert into a side table), and the same with the
//! guard's check-and-record, on a SQLite file (rusqlite, WAL) and on
//! PostgreSQL (tokio-postgres, at `$TINYSTORE_PG_URL`). The three run in
//! turn, sample by sample, so that a noisy machine weighs on each alike.
//! Prints the median µs per write of each and the guard's cost beside the
//! one more statement's. Run with `make bench-guards`.

use std::time::Instant;
use tinystore::{guard, Fence};

const SAMPLES: usize = 7;
const SQLITE_WRITES: usize = 2_000;
const POSTGRES_WRITES: usize = 1_000;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    OneMore,
    Guarded,
}

const KINDS: [(Kind, &str); 3] = [
    (Kind::Plain, "the write alone"),
    (Kind::OneMore, "the write and one more upsert"),
    (Kind::Guarded, "the write and the guard"),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn report(db: &str, samples: &[Vec<f64>; 3]) {
    let m: Vec<f64> = samples.iter().map(|s| median(s.clone())).collect();
    for ((_, what), us) in KINDS.iter().zip(&m) {
        println!("{db:<10} {what:<32} {us:>8.1} µs/write (median of {SAMPLES})");
    }
    println!(
        "{db:<10} the guard costs {:.1} µs/write ({:.2}x the write alone); one more upsert costs {:.1} µs",
        m[2] - m[0],
        m[2] / m[0],
        m[1] - m[0]
    );
}

fn sqlite_sample(conn: &mut rusqlite::Connection, kind: Kind, fence: &mut u128) -> f64 {
    let start = Instant::now();
    for _ in 0..SQLITE_WRITES {
        *fence += 1;
        let tx = conn.transaction().unwrap();
        tx.execute("update items set v = v + 1 where id = 1", [])
            .unwrap();
        match kind {
            Kind::Plain => {}
            Kind::OneMore => {
                tx.execute(
                    "insert into side (k, v) values ('r', ?1) on conflict (k) do update set v = excluded.v",
                    [fence.to_string()],
                )
                .unwrap();
            }
            Kind::Guarded => {
                guard::rusqlite::check(&tx, "items/1", Fence::from_u128(*fence)).unwrap()
            }
        }
        tx.commit().unwrap();
    }
    start.elapsed().as_secs_f64() * 1e6 / SQLITE_WRITES as f64
}

fn bench_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = rusqlite::Connection::open(dir.path().join("bench.db")).unwrap();
    conn.execute_batch(
        "pragma journal_mode = wal; pragma synchronous = normal;
         create table items (id integer primary key, v integer not null);
         insert into items values (1, 0);
         create table side (k text primary key, v text not null);",
    )
    .unwrap();
    guard::rusqlite::ensure(&conn).unwrap();
    let mut fence = 0;
    let mut samples: [Vec<f64>; 3] = Default::default();
    for _ in 0..SAMPLES {
        for (i, (kind, _)) in KINDS.iter().enumerate() {
            samples[i].push(sqlite_sample(&mut conn, *kind, &mut fence));
        }
    }
    report("sqlite", &samples);
}

async fn postgres_sample(db: &mut tokio_postgres::Client, kind: Kind, fence: &mut u128) -> f64 {
    let start = Instant::now();
    for _ in 0..POSTGRES_WRITES {
        *fence += 1;
        let tx = db.transaction().await.unwrap();
        tx.execute("update items set v = v + 1 where id = 1", &[])
            .await
            .unwrap();
        match kind {
            Kind::Plain => {}
            Kind::OneMore => {
                tx.execute(
                    "insert into side (k, v) values ('r', $1) on conflict (k) do update set v = excluded.v",
                    &[&fence.to_string()],
                )
                .await
                .unwrap();
            }
            Kind::Guarded => guard::postgres::check(&tx, "items/1", Fence::from_u128(*fence))
                .await
                .unwrap(),
        }
        tx.commit().await.unwrap();
    }
    start.elapsed().as_secs_f64() * 1e6 / POSTGRES_WRITES as f64
}

async fn bench_postgres(url: &str) {
    let (mut db, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    db.batch_execute(
        "drop table if exists items, side, tinystore_fences;
         create table items (id integer primary key, v integer not null);
         insert into items values (1, 0);
         create table side (k text primary key, v text not null);",
    )
    .await
    .unwrap();
    guard::postgres::ensure(&db).await.unwrap();
    let mut fence = 0;
    let mut samples: [Vec<f64>; 3] = Default::default();
    for _ in 0..SAMPLES {
        for (i, (kind, _)) in KINDS.iter().enumerate() {
            samples[i].push(postgres_sample(&mut db, *kind, &mut fence).await);
        }
    }
    report("postgres", &samples);
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    println!(
        "Rust: {SQLITE_WRITES} writes per SQLite sample, {POSTGRES_WRITES} per PostgreSQL sample"
    );
    bench_sqlite();
    match std::env::var("TINYSTORE_PG_URL") {
        Ok(url) => bench_postgres(&url).await,
        Err(_) => {
            println!("postgres   skipped: TINYSTORE_PG_URL is not set (make bench-guards sets it)")
        }
    }
}
