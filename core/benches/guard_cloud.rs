//! What the DynamoDB, GCS and Azure guards cost per write, each against the
//! same write unguarded, on the emulators the Makefile starts (moto's
//! DynamoDB at `$TINYSTORE_S3_URL`, fake-gcs-server at `$TINYSTORE_GCS_URL`,
//! Azurite at `$TINYSTORE_AZURE_URL`): a plain `PutItem` against
//! `guard::dynamodb::put_item` (one `TransactWriteItems`), a plain upload
//! against `guard::gcs::upload_object` (a metadata read, then an upload on
//! the generation) and a plain put against `guard::azure::put` (a HEAD, then
//! a put on the ETag), of one small item or object, the pair in turn,
//! sample by sample. Prints the median µs per write of each and the ratios.
//! The figures are the emulators', not the clouds': what they show is the
//! guard's calls, one more round trip for the object stores. Run with
//! `make bench-guards-cloud-rust`.

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, Put,
    ScalarAttributeType,
};
use gcloud_storage::client::{Client as GcsClient, ClientConfig};
use gcloud_storage::http::objects::upload::{UploadObjectRequest, UploadType};
use gcloud_storage::http::objects::Object;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::path::Path;
use object_store::{Attributes, ClientOptions, ObjectStore, PutPayload};
use std::future::Future;
use std::time::Instant;
use tinystore::guard::{azure, dynamodb, gcs};
use tinystore::Fence;

const SAMPLES: usize = 9;
const WRITES: usize = 100;
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        eprintln!("{name} is not set: run with make bench-guards-cloud-rust");
        std::process::exit(2);
    })
}

/// The median µs per write of `plain` and of `guarded`, in turn.
async fn pair<P, G, PF, GF>(mut plain: P, mut guarded: G) -> (f64, f64)
where
    P: FnMut(u128) -> PF,
    G: FnMut(u128) -> GF,
    PF: Future<Output = ()>,
    GF: Future<Output = ()>,
{
    let mut n = 0u128;
    let mut samples = (Vec::new(), Vec::new());
    for round in 0..=SAMPLES {
        let start = Instant::now();
        for _ in 0..WRITES {
            n += 1;
            plain(n).await;
        }
        let p = start.elapsed().as_secs_f64() * 1e6 / WRITES as f64;
        let start = Instant::now();
        for _ in 0..WRITES {
            n += 1;
            guarded(n).await;
        }
        let g = start.elapsed().as_secs_f64() * 1e6 / WRITES as f64;
        if round > 0 {
            // The first round warms the connections up, unmeasured.
            samples.0.push(p);
            samples.1.push(g);
        }
    }
    (median(samples.0), median(samples.1))
}

async fn dynamo() -> (f64, f64) {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(var("TINYSTORE_S3_URL"))
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(config);
    let key = KeySchemaElement::builder()
        .attribute_name("id")
        .key_type(KeyType::Hash)
        .build()
        .unwrap();
    let attribute = AttributeDefinition::builder()
        .attribute_name("id")
        .attribute_type(ScalarAttributeType::S)
        .build()
        .unwrap();
    let create = client
        .create_table()
        .table_name("bench-chats")
        .key_schema(key)
        .attribute_definitions(attribute)
        .billing_mode(BillingMode::PayPerRequest);
    create.send().await.unwrap();
    dynamodb::ensure(&client, "tinystore_fences").await.unwrap();
    let put = |id: &str, n: u128| {
        Put::builder()
            .table_name("bench-chats")
            .item("id", AttributeValue::S(id.into()))
            .item("summary", AttributeValue::S(format!("summary {n}")))
            .build()
            .unwrap()
    };
    let c = &client;
    pair(
        |n| async move {
            let p = put("plain", n);
            let call = c
                .put_item()
                .table_name("bench-chats")
                .set_item(Some(p.item().clone()));
            call.send().await.unwrap();
        },
        |n| async move {
            dynamodb::put_item(c, "bench/guarded", put("guarded", n), Fence::from_u128(n))
                .await
                .unwrap();
        },
    )
    .await
}

async fn gcs_pair() -> (f64, f64) {
    let config = ClientConfig {
        storage_endpoint: var("TINYSTORE_GCS_URL"),
        ..ClientConfig::default().anonymous()
    };
    let client = GcsClient::new(config);
    let c = &client;
    let object = |name: &str| Object {
        name: name.into(),
        ..Object::default()
    };
    pair(
        |n| async move {
            let request = UploadObjectRequest {
                bucket: "tinystore".into(),
                ..UploadObjectRequest::default()
            };
            let upload = UploadType::Multipart(Box::new(object("bench-plain")));
            c.upload_object(&request, format!("summary {n}"), &upload)
                .await
                .unwrap();
        },
        |n| async move {
            let o = object("bench-guarded");
            gcs::upload_object(
                c,
                "tinystore",
                &o,
                format!("summary {n}"),
                Fence::from_u128(n),
            )
            .await
            .unwrap();
        },
    )
    .await
}

async fn azure_pair() -> (f64, f64) {
    let client = MicrosoftAzureBuilder::new()
        .with_account("devstoreaccount1")
        .with_access_key(AZURITE_KEY)
        .with_endpoint(var("TINYSTORE_AZURE_URL"))
        .with_container_name("tinystore")
        .with_client_options(ClientOptions::new().with_allow_http(true))
        .build()
        .unwrap();
    let c = &client;
    pair(
        |n| async move {
            let body = PutPayload::from(format!("summary {n}"));
            c.put(&Path::from("bench-plain"), body).await.unwrap();
        },
        |n| async move {
            let body = PutPayload::from(format!("summary {n}"));
            let path = Path::from("bench-guarded");
            azure::put(c, &path, body, Attributes::new(), Fence::from_u128(n))
                .await
                .unwrap();
        },
    )
    .await
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rows = [
        (
            "DynamoDB (moto), aws-sdk-dynamodb",
            "`PutItem`",
            dynamo().await,
        ),
        (
            "GCS (fake-gcs-server), gcloud-storage",
            "upload",
            gcs_pair().await,
        ),
        (
            "Azure Blob (Azurite), object_store",
            "put",
            azure_pair().await,
        ),
    ];
    println!("median of {SAMPLES} samples of {WRITES} writes, plain and guarded in turn");
    println!("| store, client | the plain write | µs plain | µs guarded | guarded over plain |");
    println!("| --- | --- | ---: | ---: | ---: |");
    for (store, write, (p, g)) in rows {
        println!("| {store} | {write} | {p:.0} | {g:.0} | {:.2}x |", g / p);
    }
}
