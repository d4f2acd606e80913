//! `ServeOptions::page`: the live page is refused, before the store is
//! opened, without a metrics address or without a TCP token (the
//! command's own flags ask for both; this is the library's guard), and
//! TLS on the metrics listener without TLS on TCP.

use tinystore::server::{ServeOptions, Server, TcpOptions};
use tinystore::Code;

#[tokio::test]
async fn the_page_needs_metrics_and_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let tcp = |token: &str| {
        Some(TcpOptions {
            addr: "127.0.0.1:0".into(),
            token: token.into(),
            tls: None,
        })
    };
    for (options, says) in [
        (
            ServeOptions {
                page: true,
                tcp: tcp("sixteen-bytes-or-more-of-token"),
                ..ServeOptions::default()
            },
            "metrics address",
        ),
        (
            ServeOptions {
                page: true,
                metrics: Some("127.0.0.1:0".into()),
                ..ServeOptions::default()
            },
            "token",
        ),
        (
            ServeOptions {
                page: true,
                metrics: Some("127.0.0.1:0".into()),
                tcp: tcp(""),
                ..ServeOptions::default()
            },
            "token",
        ),
    ] {
        let err = Server::start(dir.path().join("store"), options)
            .await
            .err()
            .expect("refused");
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.to_string().contains(says), "{err}");
        assert!(!dir.path().join("store").exists(), "nothing was opened");
    }
    let served = Server::start(
        dir.path().join("store"),
        ServeOptions {
            page: true,
            metrics: Some("127.0.0.1:0".into()),
            tcp: tcp("sixteen-bytes-or-more-of-token"),
            ..ServeOptions::default()
        },
    )
    .await
    .unwrap();
    assert!(served.metrics_addr().is_some());
    served.shutdown().await.unwrap();
}

/// `ServeOptions::metrics_tls` takes the TCP listener's certificate: it is
/// refused, before the store is opened, without TLS on TCP or without a
/// metrics address.
#[tokio::test]
async fn metrics_tls_needs_metrics_and_tls_on_tcp() {
    let dir = tempfile::tempdir().unwrap();
    let plain_tcp = Some(TcpOptions {
        addr: "127.0.0.1:0".into(),
        token: "sixteen-bytes-or-more-of-token".into(),
        tls: None,
    });
    for (options, says) in [
        (
            ServeOptions {
                metrics_tls: true,
                metrics: Some("127.0.0.1:0".into()),
                tcp: plain_tcp.clone(),
                ..ServeOptions::default()
            },
            "serve TCP with TLS too",
        ),
        (
            ServeOptions {
                metrics_tls: true,
                tcp: plain_tcp.clone(),
                ..ServeOptions::default()
            },
            "needs a metrics address",
        ),
    ] {
        let err = Server::start(dir.path().join("store"), options)
            .await
            .err()
            .expect("refused");
        assert_eq!(err.code(), Code::Invalid, "{err}");
        assert!(err.to_string().contains(says), "{err}");
        assert!(!dir.path().join("store").exists(), "nothing was opened");
    }
}
