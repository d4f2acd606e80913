//! What the guard costs per write on MySQL or MariaDB (mysql_async, at
//! `$TINYSTORE_MYSQL_URL`): a write transaction alone, the same with one
//! more statement (an upsert into a side table), and the same with the
//! guard's check-and-record, each fence larger than the last (the usual
//! case: one statement). The three run in turn, sample by sample, so that
//! a noisy machine weighs on each alike. Prints the median µs per write of
//! each. Run with `make bench-guards-mysql-rust`.

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, TxOpts};
use std::time::Instant;
use tinystore::{guard, Fence};

const SAMPLES: usize = 7;
const WRITES: usize = 1_000;

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

async fn sample(db: &mut Conn, kind: Kind, fence: &mut u128) -> f64 {
    let start = Instant::now();
    for _ in 0..WRITES {
        *fence += 1;
        let mut tx = db.start_transaction(TxOpts::default()).await.unwrap();
        tx.query_drop("update items set v = v + 1 where id = 1")
            .await
            .unwrap();
        match kind {
            Kind::Plain => {}
            Kind::OneMore => tx
                .exec_drop(
                    "insert into side (k, v) values ('r', ?) on duplicate key update v = if(v <= ?, ?, v)",
                    (fence.to_string(), fence.to_string(), fence.to_string()),
                )
                .await
                .unwrap(),
            Kind::Guarded => guard::mysql::check(&mut tx, "items/1", Fence::from_u128(*fence))
                .await
                .unwrap(),
        }
        tx.commit().await.unwrap();
    }
    start.elapsed().as_secs_f64() * 1e6 / WRITES as f64
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("TINYSTORE_MYSQL_URL") else {
        eprintln!("TINYSTORE_MYSQL_URL is not set: run under tests/guards/with-mariadb.sh (make bench-guards-mysql-rust)");
        std::process::exit(2);
    };
    let mut db = Conn::new(Opts::from_url(&url).unwrap()).await.unwrap();
    db.query_drop(
        "drop table if exists items, side, tinystore_fences;
         create table items (id integer primary key, v integer not null) engine=InnoDB;
         insert into items values (1, 0);
         create table side (k varchar(64) primary key, v varchar(64) not null) engine=InnoDB;",
    )
    .await
    .unwrap();
    guard::mysql::ensure(&mut db).await.unwrap();
    let version: String = db.query_first("select version()").await.unwrap().unwrap();
    let mut fence = 0;
    let mut samples: [Vec<f64>; 3] = Default::default();
    for _ in 0..SAMPLES {
        for (i, (kind, _)) in KINDS.iter().enumerate() {
            samples[i].push(sample(&mut db, *kind, &mut fence).await);
        }
    }
    let m: Vec<f64> = samples.into_iter().map(median).collect();
    println!("mysql_async on {version}, {WRITES} writes per sample, median of {SAMPLES}");
    println!("| each write | µs per write | over the write alone |");
    println!("| --- | ---: | ---: |");
    for ((_, what), us) in KINDS.iter().zip(&m) {
        println!("| {what} | {us:.1} | {:.2}x |", us / m[0]);
    }
}
