//! The redis column: the throwaway redis-server at `$TINYSTORE_REDIS_URL`,
//! through redis-rs; the resource a key of the scenario's own, without a
//! hash tag, so its fence is kept at `{<key>}:tinystore-fence`.

use super::{fence_of, judge, unique, Backend};
use redis::aio::MultiplexedConnection;
use redis::AsyncCommands;
use serde_json::Value;
use std::process::{Child, Command, Stdio};
use tinystore::guard::redis as guard;
use tinystore::{Error, Fence};

pub struct Redis {
    url: String,
    conn: MultiplexedConnection,
    key: String,
}

/// The caller's own script of the `own_script` action.
const OWN_SCRIPT: &str = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])";

/// The ACL user that may only read, for the `permission` action.
const READER: &str = "tinystore_guard_reader";

async fn connect(url: &str) -> Result<MultiplexedConnection, String> {
    let client = redis::Client::open(url).map_err(|e| e.to_string())?;
    client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| format!("connect to {url}: {e}"))
}

/// `url` with `user:password@` before its host.
fn as_user(url: &str, user: &str, password: &str) -> String {
    url.replacen("redis://", &format!("redis://{user}:{password}@"), 1)
}

/// A redis-server of the runner's own (`$TINYSTORE_REDIS_SERVER`, which
/// tests/guards/with-redis.sh sets) on a free loopback port, listening.
fn own_server() -> Result<(Child, String), String> {
    let program = std::env::var("TINYSTORE_REDIS_SERVER")
        .map_err(|_| "TINYSTORE_REDIS_SERVER is not set: run under with-redis.sh".to_string())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let port_text = port.to_string();
    let args = ["--bind", "127.0.0.1", "--port", &port_text, "--save", ""];
    let mut child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("redis-server: {e}"))?;
    for _ in 0..300 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok((child, format!("redis://127.0.0.1:{port}/")));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(format!("redis-server did not listen on {port}"))
}

impl Redis {
    pub async fn new(url: &str, scenario: &str) -> Result<Redis, String> {
        Ok(Redis {
            url: url.to_string(),
            conn: connect(url).await?,
            key: unique(scenario),
        })
    }

    async fn set(&mut self, fence: Fence) -> Result<(), Error> {
        guard::set(&mut self.conn, &self.key, &fence.to_string(), fence).await
    }
}

impl Backend for Redis {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let r = self.key.clone();
        let expect = &step["expect"];
        if step.get("write").is_some() {
            let f = fence_of(step, "write");
            let outcome = self.set(f).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("own_script").is_some() {
            let f = fence_of(step, "own_script");
            let text = f.to_string();
            let outcome =
                guard::script(&mut self.conn, &r, OWN_SCRIPT, &[], &[text.as_str()], f).await;
            let outcome = match outcome {
                Ok(reply) => match redis::from_redis_value::<String>(reply) {
                    Ok(got) if got == text => Ok(()),
                    other => return Err(format!("the script's reply was {other:?}, not {text}")),
                },
                Err(err) => Err(err),
            };
            return judge(outcome, expect, &r, f);
        }
        if let Some(recorded) = step.get("recorded") {
            let got: Option<String> = self.conn.get(&r).await.map_err(|e| e.to_string())?;
            let want = recorded["fence"].as_str().unwrap();
            return match got {
                Some(got) if got == want => Ok(()),
                got => Err(format!("read {got:?}, expected {want}")),
            };
        }
        if step.get("corrupt").is_some() {
            let register = format!("{{{r}}}:tinystore-fence");
            let () = self
                .conn
                .set(register, "not-a-fence")
                .await
                .map_err(|e| e.to_string())?;
            return Ok(());
        }
        if step.get("permission").is_some() {
            let f = fence_of(step, "permission");
            let () = redis::cmd("ACL")
                .arg(&["SETUSER", READER, "on", ">tinystore", "~*", "+@read"])
                .query_async(&mut self.conn)
                .await
                .map_err(|e| format!("ACL SETUSER: {e}"))?;
            let mut reader = connect(&as_user(&self.url, READER, "tinystore")).await?;
            let outcome = guard::set(&mut reader, &r, &f.to_string(), f).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("server_gone").is_some() {
            let f = fence_of(step, "server_gone");
            let (mut server, url) = own_server()?;
            let connected = connect(&url).await;
            let _ = server.kill();
            let _ = server.wait();
            let outcome = guard::set(&mut connected?, &r, "v", f).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
                let outcome = guard::set(&mut self.conn, &bad, "v", f).await;
                judge(outcome, expect, &bad, f).map_err(|why| format!("{bad:?}: {why}"))?;
            }
            return Ok(());
        }
        Err(format!("the redis column has no step {step}"))
    }
}
