//! Fences over HTTP with `http` types and tower: a real hyper server on
//! loopback behind [`FenceLayer`], called by a hyper client whose requests
//! carry their fence through [`attach`] / [`with_fence`]. Every
//! fence_header case of vectors/behaviour.json, and a handler whose SQL
//! guard (rusqlite, in the handler's own transaction) refuses a late fence,
//! answered 409 with the largest fence.
#![cfg(all(feature = "guard-http", feature = "guard-sqlite"))]

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tinystore::guard::http::{
    attach, fence_of, stale_response, with_fence, FenceLayer, FENCE_HEADER, LARGEST_HEADER,
};
use tinystore::{Code, Error, Fence};
use tokio::net::{TcpListener, TcpStream};
use tower::{Layer, ServiceExt};

type Body = Full<Bytes>;

/// The service: `GET /echo` answers the fence the layer read (or `none`);
/// `POST /save` writes its body under the SQL guard on resource `chats/1`.
async fn handle(
    db: Arc<Mutex<rusqlite::Connection>>,
    calls: Arc<AtomicUsize>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Error> {
    calls.fetch_add(1, Ordering::SeqCst);
    let fence = request.extensions().get::<Fence>().copied();
    if request.uri().path() == "/echo" {
        let text = fence.map_or("none".to_string(), |f| f.to_string());
        return Ok(Response::new(Body::from(text)));
    }
    let Some(fence) = fence else {
        let mut answer = Response::new(Body::from("a fence is required"));
        *answer.status_mut() = StatusCode::BAD_REQUEST;
        return Ok(answer);
    };
    let body = request.into_body().collect().await.unwrap().to_bytes();
    let mut db = db.lock().unwrap();
    let tx = db.transaction().unwrap();
    tinystore::guard::rusqlite::check(&tx, "chats/1", fence)?;
    tx.execute(
        "insert into summaries values (?1)",
        [String::from_utf8_lossy(&body).to_string()],
    )
    .unwrap();
    tx.commit().unwrap();
    Ok(Response::new(Body::from("saved")))
}

/// A hyper server on loopback; its address and the handler's call count.
pub(crate) async fn serve() -> (String, Arc<AtomicUsize>) {
    let db = rusqlite::Connection::open_in_memory().unwrap();
    tinystore::guard::rusqlite::ensure(&db).unwrap();
    db.execute_batch("create table summaries(text)").unwrap();
    let db = Arc::new(Mutex::new(db));
    let calls = Arc::new(AtomicUsize::new(0));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let counted = calls.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (db, calls) = (db.clone(), counted.clone());
            let handler = tower::service_fn(move |r| handle(db.clone(), calls.clone(), r));
            let service = TowerToHyperService::new(FenceLayer.layer(handler));
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (address, calls)
}

/// Sends `request` on a new connection; the status, the largest-fence
/// header and the body.
async fn send(address: &str, request: Request<Body>) -> (StatusCode, Option<String>, String) {
    let stream = TcpStream::connect(address).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let largest = response
        .headers()
        .get(LARGEST_HEADER)
        .map(|v| v.to_str().unwrap().to_string());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, largest, String::from_utf8(body.to_vec()).unwrap())
}

fn request(path: &str) -> http::request::Builder {
    Request::builder().uri(path).header("host", "127.0.0.1")
}

#[tokio::test]
async fn every_fence_header_vector_holds_over_http() {
    let (address, calls) = serve().await;
    let all: Value =
        serde_json::from_str(include_str!("../../../../vectors/behaviour.json")).unwrap();
    let cases = all["fence_header"]["cases"].as_array().unwrap();
    assert!(
        cases.len() >= 10,
        "the fence_header vectors have lost cases"
    );
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let mut builder = request("/echo");
        if let Some(value) = case["value"].as_str() {
            builder = builder.header(FENCE_HEADER, HeaderValue::from_str(value).unwrap());
        }
        let before = calls.load(Ordering::SeqCst);
        let (status, _, body) = send(&address, builder.body(Body::default()).unwrap()).await;
        match case["expect"].as_str().unwrap() {
            "none" => assert_eq!((status, body.as_str()), (StatusCode::OK, "none"), "{id}"),
            "fence" => assert_eq!(
                (status, body.as_str()),
                (StatusCode::OK, case["fence"].as_str().unwrap()),
                "{id}"
            ),
            "invalid" => {
                assert_eq!(status, StatusCode::BAD_REQUEST, "{id}: {body}");
                let part = case["message_has"].as_str().unwrap();
                assert!(body.contains(part), "{id}: {body}");
                assert_eq!(calls.load(Ordering::SeqCst), before, "{id}: handler ran");
            }
            other => panic!("{id}: unknown expect {other}"),
        }
    }
}

#[tokio::test]
async fn a_header_sent_twice_is_400() {
    let (address, calls) = serve().await;
    let r = request("/echo")
        .header(FENCE_HEADER, "42")
        .header(FENCE_HEADER, "42")
        .body(Body::default())
        .unwrap();
    let (status, _, body) = send(&address, r).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.starts_with("header Tinystore-Fence: "), "{body}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_late_fence_is_answered_409_with_the_largest() {
    let (address, _) = serve().await;
    let post = |fence: u128, text: &str| {
        with_fence(request("/save").method("POST"), Fence::from_u128(fence))
            .body(Body::from(text.to_string()))
            .unwrap()
    };
    let (status, _, body) = send(&address, post(8, "by B")).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "saved"));
    let (status, largest, body) = send(&address, post(7, "by A")).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(largest.as_deref(), Some("8"));
    assert!(body.contains("chats/1"), "{body}");
    // Equal is accepted: one lease writes many times.
    let (status, _, _) = send(&address, post(8, "by B again")).await;
    assert_eq!(status, StatusCode::OK);
    // Across epochs the header carries the full 128-bit decimal.
    let big = (1u128 << 64) + 3;
    let (status, _, _) = send(&address, post(big, "by C")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, largest, _) = send(&address, post(9, "by A")).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(largest, Some(big.to_string()));
}

#[test]
fn the_client_helpers_set_the_header_once() {
    let mut r = Request::new(());
    attach(&mut r, Fence::from_u128(5));
    attach(&mut r, Fence::from_u128(6));
    assert_eq!(r.headers().get_all(FENCE_HEADER).iter().count(), 1);
    assert_eq!(fence_of(&r).unwrap(), Some(Fence::from_u128(6)));
    let r = with_fence(Request::builder(), Fence::from_u128(1 << 100))
        .body(())
        .unwrap();
    assert_eq!(r.headers()[FENCE_HEADER], (1u128 << 100).to_string());
    assert_eq!(fence_of(&Request::new(())).unwrap(), None);
}

#[tokio::test]
async fn other_errors_of_the_handler_pass_through_the_layer() {
    let failing = tower::service_fn(|_: Request<()>| async {
        Err::<Response<Body>, _>(Error::new(Code::Io, "disk"))
    });
    let err = FenceLayer
        .layer(failing)
        .oneshot(Request::new(()))
        .await
        .unwrap_err();
    let err = err
        .downcast_ref::<Error>()
        .expect("the handler's own error");
    assert_eq!(err.code(), Code::Io);
    // stale_response answers a stale error only.
    assert!(stale_response::<Body>(&Error::new(Code::Io, "disk")).is_none());
}

/// The client's reading of real answers (`answered`, which every binding
/// shares through `read_answer`): a 409 carrying one fence in
/// `Tinystore-Fence-Largest` is `stale`; a 409 without it, with a value
/// that is not a fence or with two values is `io` saying so.
#[tokio::test]
async fn a_client_reads_a_409_without_a_fence_as_io_not_stale() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            // The path names the header's values: `/12+13` sends two.
            let service = hyper::service::service_fn(|r: Request<Incoming>| async move {
                let mut answer = Response::new(Body::default());
                *answer.status_mut() = StatusCode::CONFLICT;
                let values = r.uri().path().trim_start_matches('/').to_string();
                for value in values.split('+').filter(|v| !v.is_empty()) {
                    let value = HeaderValue::from_str(value).unwrap();
                    answer.headers_mut().append(LARGEST_HEADER, value);
                }
                Ok::<_, std::convert::Infallible>(answer)
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    let answered = |path: &'static str| {
        let address = address.clone();
        async move {
            let stream = TcpStream::connect(&address).await.unwrap();
            let (mut sender, connection) =
                hyper::client::conn::http1::handshake(TokioIo::new(stream))
                    .await
                    .unwrap();
            tokio::spawn(connection);
            let request = with_fence(request(path).method("POST"), Fence::from_u128(5))
                .body(Body::default())
                .unwrap();
            let response = sender.send_request(request).await.unwrap();
            tinystore::guard::http::answered(&response, "chats/1", Fence::from_u128(5))
        }
    };
    let err = answered("/12").await.unwrap_err();
    let stale = err.stale_detail().expect("stale");
    assert_eq!((stale.fence, stale.largest), (5, 12));
    for (path, says) in [
        (
            "/",
            "without the header Tinystore-Fence-Largest: not a guard's refusal",
        ),
        (
            "/nine",
            "that is not a fence: fence text \"nine\" is not a decimal",
        ),
        (
            "/12+13",
            "that is not a fence: fence text \"12, 13\" is not a decimal",
        ),
    ] {
        let err = answered(path).await.unwrap_err();
        assert_eq!(err.code(), Code::Io, "{path}: {err}");
        assert!(
            err.message()
                .starts_with("the service answered 409 to the write to \"chats/1\" "),
            "{err}"
        );
        assert!(err.message().contains(says), "{err}");
    }
}
