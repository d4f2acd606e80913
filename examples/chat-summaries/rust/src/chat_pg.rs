//! chat.db on PostgreSQL, for `scene` and `hold-and-save` with a
//! `postgresql://` `--db`: the same migrations, and the guarded save
//! (tokio-postgres, on a runtime of its own: the program is blocking).

use std::error::Error;
use tinystore::guard;

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// A connection to the chats on PostgreSQL.
pub struct ChatPg {
    runtime: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
}

impl ChatPg {
    /// Connects and applies each migration once (in a transaction holding
    /// an advisory lock, so that two programs migrate one after the other),
    /// then makes the guard's register.
    pub fn open(url: &str) -> Result<ChatPg> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let mut client = runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            Ok::<_, tokio_postgres::Error>(client)
        })?;
        runtime.block_on(async {
            let tx = client.transaction().await?;
            tx.batch_execute(
                "select pg_advisory_xact_lock(20260004);
                 create table if not exists schema_migrations (name text primary key)",
            )
            .await?;
            for (name, sql) in crate::chat_db::MIGRATIONS {
                let done = tx
                    .query_opt("select 1 from schema_migrations where name = $1", &[&name])
                    .await?;
                if done.is_none() {
                    tx.batch_execute(sql).await?;
                    tx.execute("insert into schema_migrations (name) values ($1)", &[&name])
                        .await?;
                }
            }
            tx.commit().await?;
            guard::postgres::ensure(&client).await?;
            Ok::<_, Box<dyn Error + Send + Sync>>(())
        })?;
        Ok(ChatPg { runtime, client })
    }

    /// Makes the chat if it is missing.
    pub fn add_chat(&self, chat: i64) -> Result<()> {
        self.runtime.block_on(self.client.execute(
            "insert into chats (id, title) values ($1, 'chat') on conflict do nothing",
            &[&(chat as i32)],
        ))?;
        Ok(())
    }

    /// The guarded save: the update and the guard's check of `chats/<chat>`
    /// in one transaction. `Ok(true)` when accepted, `Ok(false)` when the
    /// guard refused it as stale (the update rolled back).
    pub fn save_guarded(
        &mut self,
        chat: i64,
        summary: &str,
        fence: tinystore::Fence,
    ) -> Result<bool> {
        let ChatPg { runtime, client } = self;
        runtime.block_on(async {
            let tx = client.transaction().await?;
            tx.execute(
                "update chats set summary = $1 where id = $2",
                &[&summary, &(chat as i32)],
            )
            .await?;
            match guard::postgres::check(&tx, &format!("chats/{chat}"), fence).await {
                Ok(()) => {
                    tx.commit().await?;
                    Ok(true)
                }
                Err(e) if e.code() == tinystore::Code::Stale => Ok(false),
                Err(e) => Err(e.into()),
            }
        })
    }

    /// The fenced update of docs/fences.md; the rows changed.
    pub fn save_column(&self, chat: i64, summary: &str, fence: tinystore::Fence) -> Result<usize> {
        let changed = self.runtime.block_on(self.client.execute(
            "update chats set summary = $1, summary_fence = $2 where id = $3 and summary_fence < $2",
            &[&summary, &fence.text(), &(chat as i32)],
        ))?;
        Ok(changed as usize)
    }

    /// The chat's summary and the fence tinystore_fences keeps for it.
    pub fn kept(&self, chat: i64) -> Result<(String, String)> {
        let row = self.runtime.block_on(self.client.query_one(
            "select summary, coalesce((select fence from tinystore_fences where resource = $2), '') \
             from chats where id = $1",
            &[&(chat as i32), &format!("chats/{chat}")],
        ))?;
        Ok((row.get(0), row.get(1)))
    }
}
