//! The s3 column: moto's server, through the AWS SDK; each scenario in a
//! bucket of its own, its resource the key `r`.

use super::{fence_of, judge, unique, Backend};
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use serde_json::Value;
use tinystore::guard::object_layout::fences_prefix;
use tinystore::guard::s3::{self, Steps};
use tinystore::guard::{ObjectStep, ObjectWrite};
use tinystore::{Error, Fence};

pub struct S3 {
    client: Client,
    bucket: String,
}

const KEY: &str = "r";

fn client_at(url: &str) -> Client {
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .force_path_style(true)
        .build();
    Client::from_conf(config)
}

/// A client of an endpoint where nothing listens.
async fn gone() -> Client {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    client_at(&format!("http://{address}"))
}

fn body_of(write: &Value, fence: Fence) -> String {
    write["body"]
        .as_str()
        .map_or_else(|| format!("v{fence}"), str::to_string)
}

impl S3 {
    pub async fn new(url: &str, scenario: &str) -> Result<S3, String> {
        let client = client_at(url);
        let mut bucket = unique(scenario).replace('/', "-").to_lowercase();
        bucket.truncate(63);
        client
            .create_bucket()
            .bucket(&bucket)
            .send()
            .await
            .map_err(|e| format!("create bucket: {e:?}"))?;
        Ok(S3 { client, bucket })
    }

    fn resource(&self) -> String {
        format!("{}/{KEY}", self.bucket)
    }

    async fn put(&self, write: &Value) -> (Result<(), Error>, Fence) {
        let f = Fence::parse(write["fence"].as_str().unwrap()).unwrap();
        let body = body_of(write, f);
        (
            s3::put(&self.client, &self.bucket, KEY, body.as_bytes(), f)
                .await
                .map(drop),
            f,
        )
    }

    /// Drives a write of `write` step by step: its first request made on
    /// `first`, every later one on `rest`, `between` run after the first.
    async fn stepped(
        &self,
        write: &Value,
        first: &Client,
        rest: &Client,
        between: &[Value],
    ) -> Result<Vec<Result<(), Error>>, String> {
        let f = Fence::parse(write["fence"].as_str().unwrap()).unwrap();
        let body = body_of(write, f);
        let mut machine = ObjectWrite::put(&self.bucket, KEY, f, vec![]);
        let mut steps = Steps::new(first, &self.bucket, body.as_bytes());
        let step = machine.start();
        let mut step = machine.observe(steps.make(step).await);
        let mut outcomes = Vec::new();
        for other in between {
            outcomes.push(self.put(other).await.0);
        }
        let mut steps = Steps::new(rest, &self.bucket, body.as_bytes());
        loop {
            if let ObjectStep::Done(verdict) = step {
                outcomes.insert(0, steps.finish(verdict));
                return Ok(outcomes);
            }
            step = machine.observe(steps.make(step).await);
        }
    }
}

impl Backend for S3 {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let r = self.resource();
        let expect = &step["expect"];
        if let Some(write) = step.get("write") {
            let (outcome, f) = self.put(write).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("delete").is_some() {
            let f = fence_of(step, "delete");
            return judge(
                s3::delete(&self.client, &self.bucket, KEY, f)
                    .await
                    .map(drop),
                expect,
                &r,
                f,
            );
        }
        if let Some(recorded) = step.get("recorded") {
            let found = s3::get(&self.client, &self.bucket, KEY)
                .await
                .map_err(|e| e.to_string())?;
            let got = found.as_ref().map(|f| {
                (
                    f.fence.to_string(),
                    String::from_utf8_lossy(&f.body).to_string(),
                )
            });
            let want = recorded["fence"].as_str().unwrap();
            return match (got, want) {
                (None, "none") => Ok(()),
                (Some((fence, body)), want) if fence == want => match recorded["body"].as_str() {
                    Some(b) if b != body => Err(format!("read body {body:?}, expected {b:?}")),
                    _ => Ok(()),
                },
                (got, want) => Err(format!("read {got:?}, expected fence {want}")),
            };
        }
        if step.get("corrupt").is_some() {
            let key = format!("{}not-a-fence", fences_prefix(KEY));
            let put = self
                .client
                .put_object()
                .bucket(&self.bucket)
                .key(key)
                .body(ByteStream::from_static(b"!"));
            put.send().await.map_err(|e| format!("{e:?}"))?;
            return Ok(());
        }
        if let Some(race) = step.get("race") {
            let between = race["between"].as_array().unwrap();
            let f = fence_of(step, "race");
            let outcomes = self
                .stepped(race, &self.client, &self.client, between)
                .await?;
            let mut outcomes = outcomes.into_iter();
            judge(outcomes.next().unwrap(), expect, &r, f)
                .map_err(|why| format!("the paused writer: {why}"))?;
            for (other, outcome) in between.iter().zip(outcomes) {
                let g = Fence::parse(other["fence"].as_str().unwrap()).unwrap();
                judge(outcome, &step["expect_between"], &r, g)
                    .map_err(|why| format!("the writer between: {why}"))?;
            }
            return Ok(());
        }
        if let Some(write) = step.get("server_gone") {
            let f = fence_of(step, "server_gone");
            let dead = gone().await;
            let mut outcomes = self.stepped(write, &self.client, &dead, &[]).await?;
            return judge(outcomes.remove(0), expect, &r, f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
                let outcome = s3::put(&self.client, &self.bucket, &bad, b"v", f)
                    .await
                    .map(drop);
                judge(outcome, expect, &format!("{}/{bad}", self.bucket), f)
                    .map_err(|why| format!("{bad:?}: {why}"))?;
            }
            let listed = self
                .client
                .list_objects_v2()
                .bucket(&self.bucket)
                .send()
                .await
                .map_err(|e| format!("{e:?}"))?;
            return if listed.contents().is_empty() {
                Ok(())
            } else {
                Err("a bad resource wrote an object".into())
            };
        }
        Err(format!("the s3 column has no step {step}"))
    }
}
