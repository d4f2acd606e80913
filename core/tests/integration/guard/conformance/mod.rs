//! The guard's conformance matrix for Rust: every scenario of
//! vectors/guards.json on every backend it names (a SQLite file, the
//! throwaway PostgreSQL at `$TINYSTORE_PG_URL`, moto's S3 at
//! `$TINYSTORE_S3_URL`, a hyper server on loopback, the redis-server at
//! `$TINYSTORE_REDIS_URL`, the MariaDB at `$TINYSTORE_MYSQL_URL`, moto's DynamoDB,
//! fake-gcs-server at `$TINYSTORE_GCS_URL`, Azurite at `$TINYSTORE_AZURE_URL`), through the crate's
//! public guard API. Prints `MATRIX rust <backend> <scenario> ok|FAIL|n/a`
//! lines (tests/guards/matrix.sh gathers them) and fails on any FAIL.
//! Without the servers' variables it fails unless
//! `TINYSTORE_MATRIX_PARTIAL=1`, where their cells print `skipped`.
#![cfg(all(
    feature = "guard-sqlite",
    feature = "guard-postgres",
    feature = "guard-s3",
    feature = "guard-http",
    feature = "guard-redis",
    feature = "guard-mysql",
    feature = "guard-dynamodb",
    feature = "guard-gcs",
    feature = "guard-azure"
))]

mod dynamodb;
mod http;
mod mysql;
mod postgres;
mod redis;
mod s3;
mod sqlite;
mod versioned;

use serde_json::Value;
use std::error::Error as _;
use tinystore::{guard, Code, Error, Fence};

/// One scenario on one backend: its steps, run in order.
pub(crate) trait Backend {
    /// Runs `step` of the scenario; `Err` says what did not hold.
    async fn step(&mut self, step: &Value) -> Result<(), String>;
}

/// The resource name of a scenario, unique to this run.
pub fn unique(scenario: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("rust-{scenario}-{}-{nanos}/r", std::process::id()).replace('_', "-")
}

pub fn fence_of(step: &Value, key: &str) -> Fence {
    Fence::parse(step[key]["fence"].as_str().expect("a fence")).expect("a fence's decimal")
}

/// Whether `outcome` is what `expect` says for a write of `fence` to
/// `resource`.
pub fn judge(
    outcome: Result<(), Error>,
    expect: &Value,
    resource: &str,
    fence: Fence,
) -> Result<(), String> {
    let name = expect.as_str().unwrap_or("stale");
    let err = match (name, outcome) {
        ("accepted", Ok(())) => return Ok(()),
        (_, Ok(())) => return Err(format!("accepted, expected {expect}")),
        ("accepted", Err(err)) => return Err(format!("expected accepted, got {err}")),
        (_, Err(err)) => err,
    };
    let has_cause = err.source().is_some();
    let holds = match name {
        "stale" => {
            let largest = Fence::parse(expect["stale"]["largest"].as_str().unwrap()).unwrap();
            err.stale_detail()
                .map(|s| (s.resource.as_str(), s.fence, s.largest))
                == Some((resource, fence.get(), largest.get()))
        }
        "corrupt" => err.code() == Code::Corrupt && err.message().contains(resource),
        "invalid" => err.code() == Code::Invalid,
        "missing_register" => {
            err.code() == Code::Invalid && err.message().contains("ensure") && has_cause
        }
        "not_in_transaction" => {
            err.code() == Code::Invalid && err.message().contains("outside a transaction")
        }
        "serialization" => {
            err.code() == Code::Io && guard::is_serialization_failure(&err) && has_cause
        }
        "permission" => err.code() == Code::Unauthorized && has_cause,
        "unavailable" => err.code() == Code::Unavailable && has_cause,
        other => {
            return Err(format!(
                "the runner does not know the expectation {other:?}"
            ))
        }
    };
    if holds {
        Ok(())
    } else {
        Err(format!(
            "expected {expect}, got {err} (a cause: {has_cause})"
        ))
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

async fn run(backend: &str, scenario: &Value) -> Result<(), String> {
    let name = scenario["name"].as_str().unwrap();
    let steps = scenario["steps"].as_array().unwrap();
    macro_rules! replay {
        ($backend:expr) => {{
            let mut b = $backend;
            for (i, step) in steps.iter().enumerate() {
                b.step(step)
                    .await
                    .map_err(|why| format!("step {}: {why}", i + 1))?;
            }
            Ok(())
        }};
    }
    match backend {
        "sqlite" => replay!(sqlite::Sqlite::new(name)),
        "postgres" => {
            replay!(postgres::Postgres::new(&env("TINYSTORE_PG_URL").unwrap(), name).await?)
        }
        "s3" => replay!(s3::S3::new(&env("TINYSTORE_S3_URL").unwrap(), name).await?),
        "http" => replay!(http::Http::new(name).await),
        "mysql" => replay!(mysql::Mysql::new(&env("TINYSTORE_MYSQL_URL").unwrap(), name).await?),
        "redis" => replay!(redis::Redis::new(&env("TINYSTORE_REDIS_URL").unwrap(), name).await?),
        "dynamodb" => replay!(dynamodb::Dynamo::new(name).await?),
        "gcs" => replay!(versioned::Versioned::gcs(
            &env("TINYSTORE_GCS_URL").unwrap(),
            name
        )),
        "azure" => replay!(versioned::Versioned::azure(
            &env("TINYSTORE_AZURE_URL").unwrap(),
            name
        )),
        other => Err(format!("no backend {other}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scenario_on_every_backend() {
    let vectors: Value =
        serde_json::from_str(include_str!("../../../../../vectors/guards.json")).unwrap();
    let not_applicable = &vectors["not_applicable"]["rust"];
    let partial = env("TINYSTORE_MATRIX_PARTIAL").as_deref() == Some("1");
    let mut failed = Vec::new();
    for scenario in vectors["scenarios"].as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        for backend in scenario["backends"].as_array().unwrap() {
            let backend = backend.as_str().unwrap();
            let cell = format!("MATRIX rust {backend} {name}");
            if let Some(why) = not_applicable[format!("{backend}/{name}")].as_str() {
                println!("{cell} n/a {why}");
                continue;
            }
            let server = match backend {
                "postgres" => Some("TINYSTORE_PG_URL"),
                "s3" => Some("TINYSTORE_S3_URL"),
                "redis" => Some("TINYSTORE_REDIS_URL"),
                "mysql" => Some("TINYSTORE_MYSQL_URL"),
                "dynamodb" => Some("TINYSTORE_S3_URL"),
                "gcs" => Some("TINYSTORE_GCS_URL"),
                "azure" => Some("TINYSTORE_AZURE_URL"),
                _ => None,
            };
            if let Some(var) = server.filter(|v| env(v).is_none()) {
                if partial {
                    println!("{cell} skipped ({var} is not set)");
                    continue;
                }
                failed.push(format!("{cell}: {var} is not set"));
                println!("{cell} FAIL {var} is not set");
                continue;
            }
            match run(backend, scenario).await {
                Ok(()) => println!("{cell} ok"),
                Err(why) => {
                    println!("{cell} FAIL {why}");
                    failed.push(format!("{cell}: {why}"));
                }
            }
        }
    }
    assert!(failed.is_empty(), "cells failed:\n{}", failed.join("\n"));
}
