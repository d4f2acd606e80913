//! The mysql column: the throwaway MariaDB, through mysql_async; each
//! scenario in a database of its own.

use super::{fence_of, judge, unique, Backend};
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, TxOpts};
use serde_json::Value;
use tinystore::guard::mysql::{check, ensure};
use tinystore::{Error, Fence};

pub struct Mysql {
    opts: OptsBuilder,
    database: String,
    db: Conn,
    resource: String,
}

async fn connect(opts: &OptsBuilder) -> Result<Conn, String> {
    Conn::new(opts.clone())
        .await
        .map_err(|e| format!("connect: {e}"))
}

/// A write in its own transaction: committed when accepted.
async fn write(db: &mut Conn, resource: &str, fence: Fence) -> Result<(), Error> {
    let mut tx = db.start_transaction(TxOpts::default()).await.unwrap();
    check(&mut tx, resource, fence).await?;
    tx.commit().await.unwrap();
    Ok(())
}

fn sql(e: mysql_async::Error) -> String {
    e.to_string()
}

impl Mysql {
    pub async fn new(url: &str, scenario: &str) -> Result<Mysql, String> {
        let resource = unique(scenario);
        let mut database = resource.replace(['-', '/'], "_");
        database.truncate(64);
        let opts = Opts::from_url(url).map_err(|e| e.to_string())?;
        let mut admin = Conn::new(opts.clone()).await.map_err(sql)?;
        admin
            .query_drop(format!("create database {database}"))
            .await
            .map_err(sql)?;
        let opts = OptsBuilder::from_opts(opts).db_name(Some(database.clone()));
        let mut db = connect(&opts).await?;
        ensure(&mut db).await.map_err(|e| e.to_string())?;
        Ok(Mysql {
            opts,
            database,
            db,
            resource,
        })
    }

    async fn recorded(&mut self) -> Option<String> {
        let read = "select fence from tinystore_fences where resource = ?";
        self.db.exec_first(read, (&self.resource,)).await.unwrap()
    }
}

impl Backend for Mysql {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let r = self.resource.clone();
        let expect = &step["expect"];
        if step.get("write").is_some() {
            let f = fence_of(step, "write");
            return judge(write(&mut self.db, &r, f).await, expect, &r, f);
        }
        if step.get("recorded").is_some() {
            let want = fence_of(step, "recorded").text();
            return match self.recorded().await {
                Some(got) if got == want => Ok(()),
                got => Err(format!("recorded {got:?}, expected {want}")),
            };
        }
        if step.get("corrupt").is_some() {
            let edit = "update tinystore_fences set fence = 'not-a-fence' where resource = ?";
            self.db.exec_drop(edit, (&r,)).await.map_err(sql)?;
            return Ok(());
        }
        if step.get("drop_register").is_some() {
            self.db
                .query_drop("drop table tinystore_fences")
                .await
                .map_err(sql)?;
            return Ok(());
        }
        if step.get("serialization").is_some() {
            let f = fence_of(step, "serialization");
            let between = Fence::parse(step["serialization"]["between"].as_str().unwrap()).unwrap();
            let mut b = connect(&self.opts).await?;
            self.db
                .query_drop("set session innodb_snapshot_isolation = ON")
                .await
                .map_err(sql)?;
            let mut a = self
                .db
                .start_transaction(TxOpts::default())
                .await
                .map_err(sql)?;
            a.query_drop("select count(*) from tinystore_fences")
                .await
                .map_err(sql)?;
            write(&mut b, &r, between)
                .await
                .map_err(|e| format!("the writer between: {e}"))?;
            let outcome = check(&mut a, &r, f).await;
            drop(a);
            return judge(outcome, expect, &r, f);
        }
        if step.get("permission").is_some() {
            let f = fence_of(step, "permission");
            let grant = format!(
                "create user if not exists 'tinystore_guard_reader'@'127.0.0.1'; \
                 grant select on {}.tinystore_fences to 'tinystore_guard_reader'@'127.0.0.1'",
                self.database
            );
            self.db.query_drop(grant).await.map_err(sql)?;
            let reader = self
                .opts
                .clone()
                .user(Some("tinystore_guard_reader"))
                .pass(None::<String>);
            let mut conn = connect(&reader).await?;
            let mut tx = conn
                .start_transaction(TxOpts::default())
                .await
                .map_err(sql)?;
            let outcome = check(&mut tx, &r, f).await;
            drop(tx);
            return judge(outcome, expect, &r, f);
        }
        if step.get("server_gone").is_some() {
            let f = fence_of(step, "server_gone");
            let mut doomed = connect(&self.opts).await?;
            let id = doomed.id();
            let mut tx = doomed
                .start_transaction(TxOpts::default())
                .await
                .map_err(sql)?;
            self.db
                .query_drop(format!("kill {id}"))
                .await
                .map_err(sql)?;
            let outcome = check(&mut tx, &r, f).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
                judge(write(&mut self.db, &bad, f).await, expect, &bad, f)
                    .map_err(|why| format!("{bad:?}: {why}"))?;
            }
            let rows: Option<i64> = self
                .db
                .query_first("select count(*) from tinystore_fences")
                .await
                .map_err(sql)?;
            return if rows == Some(0) {
                Ok(())
            } else {
                Err(format!("{rows:?} rows recorded"))
            };
        }
        Err(format!("the mysql column has no step {step}"))
    }
}
