//! The dynamodb column: moto's server (which serves DynamoDB at
//! `$TINYSTORE_S3_URL`) through the AWS SDK, the clients of
//! guard/dynamodb.rs; each scenario on a chats table of its own, its
//! resource `TABLE/42`, the register table `tinystore_fences`.

use super::super::dynamodb::{chats, client_at, put, summary};
use super::{fence_of, judge, Backend};
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use serde_json::Value;
use tinystore::guard::dynamodb as guard;
use tinystore::Fence;

pub struct Dynamo {
    client: Client,
    table: String,
}

impl Dynamo {
    pub async fn new(scenario: &str) -> Result<Dynamo, String> {
        let short: String = scenario
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(24)
            .collect();
        let (client, table) = chats(&short).await.ok_or("no DynamoDB server")?;
        Ok(Dynamo { client, table })
    }

    fn resource(&self) -> String {
        format!("{}/42", self.table)
    }

    /// The register item's fence as stored, described when not a string.
    async fn recorded(&self) -> Result<Option<String>, String> {
        let got = self
            .client
            .get_item()
            .table_name("tinystore_fences")
            .key("resource", AttributeValue::S(self.resource()))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| format!("{e:?}"))?;
        Ok(got.item().and_then(|i| i.get("fence")).map(|v| match v {
            AttributeValue::S(text) => text.clone(),
            other => format!("{other:?}"),
        }))
    }
}

impl Backend for Dynamo {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let r = self.resource();
        let expect = &step["expect"];
        if step.get("write").is_some() {
            let f = fence_of(step, "write");
            let body = format!("v{f}");
            let outcome = guard::put_item(&self.client, &r, put(&self.table, "42", &body), f).await;
            let accepted = outcome.is_ok();
            judge(outcome, expect, &r, f)?;
            // The item is written with the register or not at all.
            let written = summary(&self.client, &self.table, "42").await;
            return if accepted == (written.as_deref() == Some(body.as_str())) {
                Ok(())
            } else {
                Err(format!(
                    "accepted: {accepted}, yet the item reads {written:?}"
                ))
            };
        }
        if let Some(recorded) = step.get("recorded") {
            let want = Fence::parse(recorded["fence"].as_str().unwrap()).unwrap();
            let got = self.recorded().await?;
            return if got.as_deref() == Some(want.text().as_str()) {
                Ok(())
            } else {
                Err(format!("recorded {got:?}, expected {want}"))
            };
        }
        if step.get("corrupt").is_some() {
            let edit = self
                .client
                .put_item()
                .table_name("tinystore_fences")
                .item("resource", AttributeValue::S(r))
                .item("fence", AttributeValue::N("5".into()));
            edit.send().await.map_err(|e| format!("{e:?}"))?;
            return Ok(());
        }
        if step.get("server_gone").is_some() {
            let f = fence_of(step, "server_gone");
            let address = {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                listener.local_addr().unwrap()
            };
            let gone = client_at(&format!("http://{address}"));
            let outcome = guard::put_item(&gone, &r, put(&self.table, "42", "v"), f).await;
            return judge(outcome, expect, &r, f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025), "a\0b".to_string()] {
                let outcome =
                    guard::put_item(&self.client, &bad, put(&self.table, "42", "v"), f).await;
                judge(outcome, expect, &bad, f).map_err(|why| format!("{bad:?}: {why}"))?;
            }
            return match summary(&self.client, &self.table, "42").await {
                None => Ok(()),
                Some(s) => Err(format!("a bad resource wrote {s:?}")),
            };
        }
        Err(format!("the dynamodb column has no step {step}"))
    }
}
