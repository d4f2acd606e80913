//! The http column: a hyper server on loopback behind the crate's
//! FenceLayer, whose handler guards a SQLite file with the request's
//! fence; a hyper client attaching the fence with the crate's helper.

use super::{fence_of, unique, Backend};
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tinystore::guard::http::{with_fence, FenceLayer, FENCE_HEADER, LARGEST_HEADER};
use tinystore::{Code, Error, Fence};
use tokio::net::{TcpListener, TcpStream};
use tower::Layer;

type Body = Full<Bytes>;

pub struct Http {
    db: Arc<Mutex<Connection>>,
    address: String,
    resource: String,
}

/// The handler: the guard in its own transaction; a corrupt register is
/// answered 500 with the error's message (stale and invalid are the
/// layer's 409 and 400).
async fn handle(
    db: Arc<Mutex<Connection>>,
    resource: String,
    request: Request<Incoming>,
) -> Result<Response<Body>, Error> {
    let Some(fence) = request.extensions().get::<Fence>().copied() else {
        let mut answer = Response::new(Body::from("a fence is required"));
        *answer.status_mut() = StatusCode::BAD_REQUEST;
        return Ok(answer);
    };
    let mut db = db.lock().unwrap();
    let tx = db.transaction().unwrap();
    match tinystore::guard::rusqlite::check(&tx, &resource, fence) {
        Ok(()) => {
            tx.commit().unwrap();
            Ok(Response::new(Body::from("saved")))
        }
        Err(err) if err.code() == Code::Corrupt => {
            let mut answer = Response::new(Body::from(err.to_string()));
            *answer.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            Ok(answer)
        }
        Err(err) => Err(err),
    }
}

impl Http {
    pub async fn new(scenario: &str) -> Http {
        let db = Connection::open_in_memory().unwrap();
        tinystore::guard::rusqlite::ensure(&db).unwrap();
        let db = Arc::new(Mutex::new(db));
        let resource = unique(scenario);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let (served, name) = (db.clone(), resource.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (db, name) = (served.clone(), name.clone());
                let handler = tower::service_fn(move |r| handle(db.clone(), name.clone(), r));
                let service = TowerToHyperService::new(FenceLayer.layer(handler));
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Http {
            db,
            address,
            resource,
        }
    }

    /// Sends a POST with `fence` attached, or with `header` as it is.
    async fn send(
        &self,
        fence: Option<Fence>,
        header: Option<&str>,
    ) -> (StatusCode, Option<String>, String) {
        let stream = TcpStream::connect(&self.address).await.unwrap();
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(connection);
        let mut builder = Request::post(format!("http://{}/save", self.address));
        if let Some(f) = fence {
            builder = with_fence(builder, f);
        }
        if let Some(h) = header {
            builder = builder.header(FENCE_HEADER, h);
        }
        let answer = sender
            .send_request(builder.body(Body::from("v")).unwrap())
            .await
            .unwrap();
        let largest = answer
            .headers()
            .get(LARGEST_HEADER)
            .map(|v| v.to_str().unwrap().to_string());
        let status = answer.status();
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        (status, largest, String::from_utf8_lossy(&body).to_string())
    }
}

impl Backend for Http {
    async fn step(&mut self, step: &Value) -> Result<(), String> {
        let expect = &step["expect"];
        if let Some(write) = step.get("write") {
            let header = write["fence_header"].as_str();
            let fence = header.is_none().then(|| fence_of(step, "write"));
            let (status, largest, body) = self.send(fence, header).await;
            let holds = match (expect.as_str(), status.as_u16()) {
                (Some("accepted"), 200) => true,
                (Some("corrupt"), 500) => body.contains(&self.resource),
                (Some("bad_request"), 400) => body.contains(FENCE_HEADER),
                (None, 409) => largest.as_deref() == expect["stale"]["largest"].as_str(),
                _ => false,
            };
            return if holds {
                Ok(())
            } else {
                Err(format!(
                    "expected {expect}, got {status} {largest:?} {body:?}"
                ))
            };
        }
        if step.get("recorded").is_some() {
            let want = fence_of(step, "recorded").text();
            let db = self.db.lock().unwrap();
            let read = "select fence from tinystore_fences where resource = ?1";
            let got: Option<String> = db
                .query_row(read, [&self.resource], |r| r.get(0))
                .optional()
                .unwrap();
            return if got.as_deref() == Some(want.as_str()) {
                Ok(())
            } else {
                Err(format!("recorded {got:?}, expected {want}"))
            };
        }
        if step.get("corrupt").is_some() {
            let db = self.db.lock().unwrap();
            db.execute(
                "update tinystore_fences set fence = 'not-a-fence' where resource = ?1",
                [&self.resource],
            )
            .unwrap();
            return Ok(());
        }
        Err(format!("the http column has no step {step}"))
    }
}
