//! The DynamoDB guard on moto's server (`$TINYSTORE_S3_URL`, which serves
//! DynamoDB too; tests/guards/with-s3.sh starts it), through the AWS SDK:
//! the rule on a guarded put, update and delete and on a transaction of
//! several items, nothing written when refused; a hand-edited register;
//! the caller's own condition failing; too many items; the server gone.
//! Without the variable these tests skip, unless `TINYSTORE_REQUIRE_S3=1`
//! (as `make test` sets), where they fail.
#![cfg(feature = "guard-dynamodb")]

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, Delete, KeySchemaElement, KeyType, Put,
    ScalarAttributeType, TransactWriteItem,
};
use aws_sdk_dynamodb::Client;
use std::error::Error as _;
use tinystore::guard::dynamodb as guard;
use tinystore::{Code, Fence};

pub(crate) fn client_at(url: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .build();
    Client::from_conf(config)
}

/// A client and a chats table of this test's own; `None` when no server.
pub(crate) async fn chats(name: &str) -> Option<(Client, String)> {
    let Ok(url) = std::env::var("TINYSTORE_S3_URL") else {
        assert!(
            std::env::var("TINYSTORE_REQUIRE_S3").as_deref() != Ok("1"),
            "TINYSTORE_S3_URL is not set: run under tests/guards/with-s3.sh"
        );
        eprintln!("skipped: TINYSTORE_S3_URL is not set");
        return None;
    };
    let client = client_at(&url);
    let table = format!("chats-{name}-{}", std::process::id());
    client
        .create_table()
        .table_name(&table)
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("id")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    guard::ensure(&client, "tinystore_fences").await.unwrap();
    guard::ensure(&client, "tinystore_fences").await.unwrap();
    Some((client, table))
}

pub(crate) fn put(table: &str, id: &str, summary: &str) -> Put {
    Put::builder()
        .table_name(table)
        .item("id", AttributeValue::S(id.into()))
        .item("summary", AttributeValue::S(summary.into()))
        .build()
        .unwrap()
}

pub(crate) async fn summary(client: &Client, table: &str, id: &str) -> Option<String> {
    let got = client
        .get_item()
        .table_name(table)
        .key("id", AttributeValue::S(id.into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    got.item()
        .and_then(|i| i.get("summary"))
        .map(|v| v.as_s().unwrap().clone())
}

fn fence(n: u128) -> Fence {
    Fence::from_u128(n)
}

#[tokio::test]
async fn put_accepts_equal_and_larger_and_refuses_smaller_writing_nothing() {
    let Some((client, table)) = chats("put").await else {
        return;
    };
    let r = format!("{table}/42");
    guard::put_item(&client, &r, put(&table, "42", "by 8"), fence(8))
        .await
        .unwrap();
    guard::put_item(&client, &r, put(&table, "42", "by 8 again"), fence(8))
        .await
        .unwrap();
    let err = guard::put_item(&client, &r, put(&table, "42", "late"), fence(7))
        .await
        .unwrap_err();
    let stale = err.stale_detail().expect("stale");
    assert_eq!(
        (stale.resource.as_str(), stale.fence, stale.largest),
        (r.as_str(), 7, 8)
    );
    assert_eq!(
        summary(&client, &table, "42").await.as_deref(),
        Some("by 8 again")
    );
    let delete = Delete::builder()
        .table_name(&table)
        .key("id", AttributeValue::S("42".into()))
        .build()
        .unwrap();
    guard::delete_item(&client, &r, delete, fence(9))
        .await
        .unwrap();
    let err = guard::put_item(&client, &r, put(&table, "42", "back"), fence(8))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    assert_eq!(summary(&client, &table, "42").await, None);
}

#[tokio::test]
async fn a_transaction_is_written_with_the_register_or_not_at_all() {
    let Some((client, table)) = chats("many").await else {
        return;
    };
    let r = format!("{table}/ab");
    let items = |text: &str| -> Vec<TransactWriteItem> {
        ["a", "b"]
            .iter()
            .map(|id| {
                TransactWriteItem::builder()
                    .put(put(&table, id, text))
                    .build()
            })
            .collect()
    };
    guard::transact_write_items(&client, "tinystore_fences", &r, items("by 9"), fence(9))
        .await
        .unwrap();
    let err = guard::transact_write_items(&client, "tinystore_fences", &r, items("by 8"), fence(8))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    assert_eq!(summary(&client, &table, "b").await.as_deref(), Some("by 9"));
    let many = (0..100).map(|_| items("x").remove(0)).collect();
    let err = guard::transact_write_items(&client, "tinystore_fences", &r, many, fence(10))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
}

#[tokio::test]
async fn a_hand_edited_register_is_corrupt_and_your_condition_the_clients_error() {
    let Some((client, table)) = chats("edit").await else {
        return;
    };
    let r = format!("{table}/42");
    client
        .put_item()
        .table_name("tinystore_fences")
        .item("resource", AttributeValue::S(r.clone()))
        .item("fence", AttributeValue::N("99".into()))
        .send()
        .await
        .unwrap();
    let err = guard::put_item(&client, &r, put(&table, "42", "v"), fence(4))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Corrupt, "{err}");
    assert!(err.message().contains(&r), "{err}");
    let fresh = format!("{table}/43");
    let mut yours = put(&table, "43", "v");
    yours.condition_expression = Some("attribute_exists(id)".into());
    let err = guard::put_item(&client, &fresh, yours, fence(4))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(err.message().contains("ConditionalCheckFailed"), "{err}");
    assert!(err.source().is_some());
    assert!(!tinystore::guard::is_serialization_failure(&err));
}

#[tokio::test]
async fn the_server_gone_is_unavailable_with_the_sdks_error() {
    if chats("gone").await.is_none() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let gone = client_at(&format!("http://{address}"));
    let err = guard::put_item(&gone, "r", put("t", "1", "v"), fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(err.source().is_some());
}

/// A moto server of this test's own that checks every request's
/// credentials (`INITIAL_NO_AUTH_ACTION_COUNT=0`), which this test's are
/// not: `None` when `$MOTO_SERVER` does not name the program.
struct Strict(std::process::Child, String);

impl Drop for Strict {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn strict_moto() -> Option<Strict> {
    let Ok(program) = std::env::var("MOTO_SERVER") else {
        assert!(
            std::env::var("TINYSTORE_REQUIRE_S3").as_deref() != Ok("1"),
            "MOTO_SERVER is not set: run under tests/guards/with-s3.sh"
        );
        return None;
    };
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let child = std::process::Command::new(program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .env("INITIAL_NO_AUTH_ACTION_COUNT", "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let strict = Strict(child, format!("http://127.0.0.1:{port}"));
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Some(strict);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("moto_server did not listen on {}", strict.1);
}

#[tokio::test]
async fn a_caller_the_server_refuses_is_unauthorized_with_the_sdks_error() {
    let Some(strict) = strict_moto().await else {
        return;
    };
    let client = client_at(&strict.1);
    let err = guard::put_item(&client, "chats/42", put("chats", "42", "v"), fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    assert!(err.source().is_some(), "{err}");
    assert!(!tinystore::guard::is_serialization_failure(&err));
}
