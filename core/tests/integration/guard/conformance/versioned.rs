//! The gcs and azure columns: fake-gcs-server through gcloud-storage and
//! Azurite through object_store (the clients of guard/versioned.rs), each
//! scenario on an object of its own; a writer between the guard's read and
//! its put made on the wire by a loopback proxy.

use super::super::versioned::{azure_at, gcs_at, racing, Store};
use super::{fence_of, judge, unique, Backend};
use serde_json::Value;
use tinystore::Fence;

pub struct Versioned {
    store: Store,
    url: String,
    name: String,
}

impl Versioned {
    pub fn gcs(url: &str, scenario: &str) -> Versioned {
        Versioned::new(gcs_at(url), url, scenario)
    }

    pub fn azure(url: &str, scenario: &str) -> Versioned {
        Versioned::new(azure_at(url), url, scenario)
    }

    fn new(store: Store, url: &str, scenario: &str) -> Versioned {
        Versioned {
            store,
            url: url.to_string(),
            name: unique(scenario),
        }
    }

    fn body(write: &Value, fence: Fence) -> String {
        write["body"]
            .as_str()
            .map_or_else(|| format!("v{fence}"), str::to_string)
    }
}

impl Backend for Versioned {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let r = self.store.resource(&self.name);
        let expect = &step["expect"];
        if let Some(write) = step.get("write") {
            let f = fence_of(step, "write");
            let body = Versioned::body(write, f);
            let outcome = self.store.guarded(&self.name, &body, f.get(), &[]).await;
            return judge(outcome, expect, &r, f);
        }
        if let Some(recorded) = step.get("recorded") {
            let want = Fence::parse(recorded["fence"].as_str().unwrap()).unwrap();
            return match self.store.read(&self.name).await {
                Some((body, Some(fence))) if fence == want.text() => {
                    match recorded["body"].as_str() {
                        Some(b) if b != body => Err(format!("read body {body:?}, expected {b:?}")),
                        _ => Ok(()),
                    }
                }
                other => Err(format!("read {other:?}, expected fence {want}")),
            };
        }
        if step.get("corrupt").is_some() {
            let key = self.store.key();
            self.store
                .plain(&self.name, "edited", &[(key, "not-a-fence")])
                .await;
            return Ok(());
        }
        if let Some(race) = step.get("race") {
            let f = fence_of(step, "race");
            let between = race["between"].as_array().unwrap();
            let [other] = between.as_slice() else {
                return Err("the runner makes one writer between".into());
            };
            if step["expect_between"] != "accepted" {
                return Err("the writer between is expected accepted by the runner".into());
            }
            let g = Fence::parse(other["fence"].as_str().unwrap()).unwrap();
            let paused = racing(&self.store, &self.url, &self.name, g.get()).await;
            let body = Versioned::body(race, f);
            let outcome = paused.guarded(&self.name, &body, f.get(), &[]).await;
            return judge(outcome, expect, &r, f)
                .map_err(|why| format!("the paused writer: {why}"));
        }
        if step.get("server_gone").is_some() {
            let f = fence_of(step, "server_gone");
            let port = {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                listener.local_addr().unwrap().port()
            };
            let gone = match self.store {
                Store::Gcs(_) => gcs_at(&format!("http://127.0.0.1:{port}")),
                Store::Azure(_) => azure_at(&format!("http://127.0.0.1:{port}/devstoreaccount1")),
            };
            let outcome = gone.guarded(&self.name, "v", f.get(), &[]).await;
            return judge(outcome, expect, &gone.resource(&self.name), f);
        }
        if step.get("bad_resource").is_some() {
            let f = fence_of(step, "bad_resource");
            for bad in [String::new(), "x".repeat(1025)] {
                let outcome = self.store.guarded(&bad, "v", f.get(), &[]).await;
                judge(outcome, expect, &self.store.resource(&bad), f)
                    .map_err(|why| format!("{} bytes: {why}", bad.len()))?;
            }
            return Ok(());
        }
        Err(format!("the gcs and azure columns have no step {step}"))
    }
}
