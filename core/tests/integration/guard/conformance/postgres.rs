//! The postgres column: the throwaway PostgreSQL, through tokio-postgres;
//! each scenario in a schema of its own.

use super::{fence_of, judge, unique, Backend};
use serde_json::Value;
use tinystore::guard::postgres::{check, ensure};
use tinystore::{Error, Fence};
use tokio_postgres::{Client, IsolationLevel, NoTls};

pub struct Postgres {
    url: String,
    schema: String,
    db: Client,
    resource: String,
}

async fn connect(url: &str, schema: &str) -> Result<Client, String> {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    tokio::spawn(connection);
    client
        .batch_execute(&format!("set search_path to {schema}"))
        .await
        .map_err(|e| e.to_string())?;
    Ok(client)
}

/// A write in its own transaction: committed when accepted.
async fn write(db: &mut Client, resource: &str, fence: Fence) -> Result<(), Error> {
    let tx = db.transaction().await.unwrap();
    check(&tx, resource, fence).await?;
    tx.commit().await.unwrap();
    Ok(())
}

impl Postgres {
    pub async fn new(url: &str, scenario: &str) -> Result<Postgres, String> {
        let resource = unique(scenario);
        let schema = resource.replace(['-', '/'], "_");
        let admin = connect(url, "public").await?;
        admin
            .batch_execute(&format!("create schema {schema}"))
            .await
            .map_err(|e| e.to_string())?;
        let db = connect(url, &schema).await?;
        ensure(&db).await.map_err(|e| e.to_string())?;
        Ok(Postgres {
            url: url.to_string(),
            schema,
            db,
            resource,
        })
    }

    async fn recorded(&self) -> Option<String> {
        let read = "select fence from tinystore_fences where resource = $1";
        self.db
            .query_opt(read, &[&self.resource])
            .await
            .unwrap()
            .map(|row| row.get(0))
    }
}

impl Backend for Postgres {
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
            let edit = "update tinystore_fences set fence = 'not-a-fence' where resource = $1";
            self.db.execute(edit, &[&r]).await.unwrap();
            return Ok(());
        }
        if step.get("drop_register").is_some() {
            self.db
                .batch_execute("drop table tinystore_fences")
                .await
                .unwrap();
            return Ok(());
        }
        if step.get("serialization").is_some() {
            let f = fence_of(step, "serialization");
            let between = Fence::parse(step["serialization"]["between"].as_str().unwrap()).unwrap();
            let mut b = connect(&self.url, &self.schema).await?;
            let a = self
                .db
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .start()
                .await
                .unwrap();
            a.query("select count(*) from tinystore_fences", &[])
                .await
                .unwrap();
            write(&mut b, &r, between)
                .await
                .map_err(|e| format!("the writer between: {e}"))?;
            let outcome = check(&a, &r, f).await;
            drop(a);
            return judge(outcome, expect, &r, f);
        }
        if step.get("permission").is_some() {
            let f = fence_of(step, "permission");
            let grant = format!(
                "do $$ begin create role tinystore_guard_reader; exception when duplicate_object then null; end $$; \
                 grant usage on schema {0} to tinystore_guard_reader; \
                 grant select on {0}.tinystore_fences to tinystore_guard_reader",
                self.schema
            );
            self.db
                .batch_execute(&grant)
                .await
                .map_err(|e| e.to_string())?;
            let tx = self.db.transaction().await.unwrap();
            tx.batch_execute("set local role tinystore_guard_reader")
                .await
                .unwrap();
            let outcome = check(&tx, &r, f).await;
            drop(tx);
            return judge(outcome, expect, &r, f);
        }
        if step.get("server_gone").is_some() {
            let f = fence_of(step, "server_gone");
            let mut doomed = connect(&self.url, &self.schema).await?;
            let pid: i32 = doomed
                .query_one("select pg_backend_pid()", &[])
                .await
                .unwrap()
                .get(0);
            let tx = doomed.transaction().await.unwrap();
            self.db
                .execute("select pg_terminate_backend($1)", &[&pid])
                .await
                .unwrap();
            let outcome = check(&tx, &r, f).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
                judge(write(&mut self.db, &bad, f).await, expect, &bad, f)
                    .map_err(|why| format!("{bad:?}: {why}"))?;
            }
            let rows: i64 = self
                .db
                .query_one("select count(*) from tinystore_fences", &[])
                .await
                .unwrap()
                .get(0);
            return if rows == 0 {
                Ok(())
            } else {
                Err(format!("{rows} rows recorded"))
            };
        }
        Err(format!("the postgres column has no step {step}"))
    }
}
