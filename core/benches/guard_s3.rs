//! What the object-storage guard costs per write: a plain put against a
//! guarded put (a HEAD, then a conditional put with the fence in the
//! metadata) of the same small body on the same S3-compatible server
//! (moto's, at `$TINYSTORE_S3_URL`), the two in turn, sample by sample, so
//! that a noisy machine weighs on each alike. Prints the median µs per put
//! of each and their ratio. Run with `make bench-guards-s3-rust`.

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use std::time::Instant;
use tinystore::{guard, Fence};

const SAMPLES: usize = 7;
const PUTS: usize = 50;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

async fn sample(client: &Client, bucket: &str, guarded: bool, n: &mut u128) -> f64 {
    let start = Instant::now();
    for _ in 0..PUTS {
        *n += 1;
        // Each body differs: a guarded put of the object's own body is refused.
        let body = format!("{{\"summary\": \"number {n}\"}}");
        if guarded {
            guard::s3::put(
                client,
                bucket,
                "guarded",
                body.as_bytes(),
                Fence::from_u128(*n),
            )
            .await
            .unwrap();
        } else {
            client
                .put_object()
                .bucket(bucket)
                .key("plain")
                .body(ByteStream::from(body.into_bytes()))
                .send()
                .await
                .unwrap();
        }
    }
    start.elapsed().as_secs_f64() * 1e6 / PUTS as f64
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("TINYSTORE_S3_URL") else {
        eprintln!("TINYSTORE_S3_URL is not set: run under tests/guards/with-s3.sh (make bench-guards-s3-rust)");
        std::process::exit(2);
    };
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(&url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "bench"))
        .force_path_style(true)
        .build();
    let client = Client::from_conf(config);
    let bucket = format!("bench-rs-{}", std::process::id());
    client.create_bucket().bucket(&bucket).send().await.unwrap();
    let mut n = 0u128;
    // One of each first, unmeasured: connections and the objects exist.
    sample(&client, &bucket, false, &mut n).await;
    sample(&client, &bucket, true, &mut n).await;
    let (mut plain, mut guarded) = (Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        plain.push(sample(&client, &bucket, false, &mut n).await);
        guarded.push(sample(&client, &bucket, true, &mut n).await);
    }
    let (p, g) = (median(plain), median(guarded));
    println!(
        "s3 (moto)  a plain put                {p:>8.1} µs/put (median of {SAMPLES} x {PUTS})"
    );
    println!(
        "s3 (moto)  a guarded put              {g:>8.1} µs/put (median of {SAMPLES} x {PUTS})"
    );
    println!(
        "s3 (moto)  the guard costs {:.1} µs/put ({:.2}x a plain put)",
        g - p,
        g / p
    );
}
