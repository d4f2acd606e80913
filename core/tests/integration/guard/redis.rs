//! The Redis guard on a real redis-server (Debian's, at
//! `$TINYSTORE_REDIS_URL`; tests/guards/with-redis.sh starts one), through
//! redis-rs: the rule on SET, DEL and HSET, a script flushed from the
//! server's cache, a hand-edited register, a write Redis refuses, a key no
//! register can share a hash slot with, and the server gone mid-call.
//! Without the variable these tests skip, unless `TINYSTORE_REQUIRE_REDIS=1`
//! (as `make test` sets), where they fail.
#![cfg(feature = "guard-redis")]

use redis::aio::MultiplexedConnection;
use redis::AsyncCommands;
use std::error::Error as _;
use std::process::{Child, Command, Stdio};
use tinystore::guard::redis as guard;
use tinystore::guard::redis_layout::register_key;
use tinystore::{Code, Fence};

fn redis_url() -> Option<String> {
    match std::env::var("TINYSTORE_REDIS_URL") {
        Ok(url) => Some(url),
        Err(_) => {
            assert!(
                std::env::var("TINYSTORE_REQUIRE_REDIS").as_deref() != Ok("1"),
                "TINYSTORE_REDIS_URL is not set: run under tests/guards/with-redis.sh"
            );
            eprintln!("skipped: TINYSTORE_REDIS_URL is not set");
            None
        }
    }
}

async fn connect(url: &str) -> MultiplexedConnection {
    let client = redis::Client::open(url).unwrap();
    client.get_multiplexed_async_connection().await.unwrap()
}

/// A key of this test's own (the server is shared by the tests).
fn key(name: &str) -> String {
    format!("tinystore-test:{}:{name}", std::process::id())
}

fn fence(n: u128) -> Fence {
    Fence::from_u128(n)
}

#[tokio::test]
async fn set_accepts_equal_and_larger_and_refuses_smaller_with_the_three() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = key("set");
    guard::set(&mut conn, &k, "v5", fence(5)).await.unwrap();
    guard::set(&mut conn, &k, "v5 again", fence(5))
        .await
        .unwrap();
    guard::set(&mut conn, &k, "v7", fence(7)).await.unwrap();
    let err = guard::set(&mut conn, &k, "late", fence(6))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    let stale = err.stale_detail().unwrap();
    assert_eq!(
        (stale.resource.as_str(), stale.fence, stale.largest),
        (k.as_str(), 6, 7)
    );
    let value: String = conn.get(&k).await.unwrap();
    assert_eq!(value, "v7");
    let recorded: String = conn.get(register_key(&k).unwrap()).await.unwrap();
    assert_eq!(recorded, fence(7).text());
}

#[tokio::test]
async fn del_keeps_the_fence_so_a_late_set_stays_refused() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = key("del");
    guard::set(&mut conn, &k, "v", fence(3)).await.unwrap();
    guard::del(&mut conn, &k, fence(4)).await.unwrap();
    guard::del(&mut conn, &k, fence(4)).await.unwrap();
    let err = guard::set(&mut conn, &k, "late", fence(3))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    let exists: bool = conn.exists(&k).await.unwrap();
    assert!(!exists, "the late write brought the key back");
}

#[tokio::test]
async fn hset_writes_its_fields_and_a_late_one_writes_none() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = key("{user42}:profile");
    guard::hset(&mut conn, &k, &[("name", "ada"), ("plan", "pro")], fence(2))
        .await
        .unwrap();
    let err = guard::hset(&mut conn, &k, &[("plan", "free")], fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    let plan: String = conn.hget(&k, "plan").await.unwrap();
    assert_eq!(plan, "pro");
    assert_eq!(register_key(&k).unwrap(), format!("{k}:tinystore-fence"));
}

/// On a server of its own: a flush on the shared one could land between
/// another test's `SCRIPT LOAD` and its `EVALSHA` (redis-rs's `Script`
/// retries once), and fail that test with NOSCRIPT.
#[tokio::test]
async fn a_script_flushed_from_the_servers_cache_is_sent_again() {
    if redis_url().is_none() {
        return;
    }
    let (mut child, url) = own_server().expect("with-redis.sh sets TINYSTORE_REDIS_SERVER");
    let mut conn = connect(&url).await;
    let k = key("flushed");
    guard::set(&mut conn, &k, "a", fence(1)).await.unwrap();
    let _: () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async(&mut conn)
        .await
        .unwrap();
    guard::set(&mut conn, &k, "b", fence(2)).await.unwrap();
    let value: String = conn.get(&k).await.unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(value, "b");
}

#[tokio::test]
async fn a_hand_edited_register_is_corrupt_naming_it_and_nothing_is_written() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    for (name, edit) in [("short", "12"), ("hash", "")] {
        let k = key(name);
        let register = register_key(&k).unwrap();
        if edit.is_empty() {
            let _: () = conn.hset(&register, "fence", "1").await.unwrap();
        } else {
            let _: () = conn.set(&register, edit).await.unwrap();
        }
        let err = guard::set(&mut conn, &k, "v", fence(9)).await.unwrap_err();
        assert_eq!(err.code(), Code::Corrupt, "{name}: {err}");
        assert!(err.message().contains(&register), "{}", err.message());
        let exists: bool = conn.exists(&k).await.unwrap();
        assert!(!exists, "{name}: written anyway");
    }
}

#[tokio::test]
async fn a_write_redis_refuses_is_its_error_and_records_no_fence() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = key("a-string");
    let _: () = conn.set(&k, "plain").await.unwrap();
    let err = guard::hset(&mut conn, &k, &[("f", "v")], fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(err.message().contains("WRONGTYPE"), "{}", err.message());
    let cause = err
        .source()
        .and_then(|c| c.downcast_ref::<redis::RedisError>());
    assert_eq!(cause.and_then(|c| c.code()), Some("WRONGTYPE"));
    let recorded: bool = conn.exists(register_key(&k).unwrap()).await.unwrap();
    assert!(!recorded, "a fence was recorded for a write that failed");
}

#[tokio::test]
async fn a_key_no_register_can_share_a_slot_with_is_invalid_before_any_call() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = key("a}b");
    let err = guard::set(&mut conn, &k, "v", fence(1)).await.unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("hash tag"), "{}", err.message());
    let exists: bool = conn.exists(&k).await.unwrap();
    assert!(!exists);
}

/// A redis-server of this test's own, to stop in the middle.
fn own_server() -> Option<(Child, String)> {
    let program = std::env::var("TINYSTORE_REDIS_SERVER").ok()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(program)
        .args([
            "--bind",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--save",
            "",
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let listening = (0..300).any(|_| {
        let up = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
        if !up {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        up
    });
    if !listening {
        let _ = child.kill();
        let _ = child.wait();
        panic!("redis-server did not listen on {port}");
    }
    Some((child, format!("redis://127.0.0.1:{port}/")))
}

#[tokio::test]
async fn the_server_gone_mid_call_is_unavailable_with_the_clients_error() {
    if redis_url().is_none() {
        return;
    }
    let (mut child, url) = own_server().expect("with-redis.sh sets TINYSTORE_REDIS_SERVER");
    let mut conn = connect(&url).await;
    guard::set(&mut conn, "k", "v", fence(1)).await.unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let err = guard::set(&mut conn, "k", "v", fence(2)).await.unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(err
        .source()
        .and_then(|c| c.downcast_ref::<redis::RedisError>())
        .is_some());
}

const OWN_SCRIPT: &str =
    "redis.call('SET', KEYS[1], ARGV[1]) return {ARGV[1], redis.call('INCR', KEYS[2])}";

#[tokio::test]
async fn their_script_runs_behind_the_check_and_its_reply_comes_back() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = format!("{{{}}}:profile", key("own"));
    let count = format!("{{{}}}:saves", key("own"));
    let reply = guard::script(&mut conn, &k, OWN_SCRIPT, &[&count], &["pro"], fence(5))
        .await
        .unwrap();
    let (plan, saves): (String, i64) = redis::from_redis_value(reply).unwrap();
    assert_eq!((plan.as_str(), saves), ("pro", 1));
    let err = guard::script(&mut conn, &k, OWN_SCRIPT, &[&count], &["late"], fence(4))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
    assert_eq!(err.stale_detail().unwrap().largest, 5);
    let value: String = conn.get(&k).await.unwrap();
    let saves: i64 = conn.get(&count).await.unwrap();
    assert_eq!((value.as_str(), saves), ("pro", 1), "the late body ran");
    // The guard's own SET and the script share the fence.
    let err = guard::set(&mut conn, &k, "late", fence(4))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Stale);
}

#[tokio::test]
async fn their_script_failing_half_way_keeps_its_writes_under_the_fence() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = key("half");
    let body = "redis.call('SET', KEYS[1], 'half') return redis.call('HSET', KEYS[1], 'f', 'v')";
    let err = guard::script(&mut conn, &k, body, &[], &[], fence(8))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Io, "{err}");
    let cause = err.source().expect("the client's error as the cause");
    assert!(cause.to_string().contains("WRONGTYPE"), "{cause}");
    let value: String = conn.get(&k).await.unwrap();
    assert_eq!(value, "half");
    let err = guard::set(&mut conn, &k, "late", fence(7))
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Code::Stale,
        "a smaller fence wrote after the half-way body"
    );
}

#[tokio::test]
async fn their_script_touching_another_slot_is_invalid_before_any_call() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let k = format!("{{{}}}:a", key("slot"));
    let err = guard::script(&mut conn, &k, OWN_SCRIPT, &["elsewhere"], &["x"], fence(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Invalid);
    assert!(err.message().contains("hash slot"), "{}", err.message());
    let exists: bool = conn.exists(register_key(&k).unwrap()).await.unwrap();
    assert!(!exists, "a fence was recorded");
}

#[tokio::test]
async fn given_the_lease_a_refusal_is_told_to_its_store() {
    let Some(url) = redis_url() else { return };
    let mut conn = connect(&url).await;
    let dir = tempfile::tempdir().unwrap();
    let store = tinystore::Store::open(dir.path().join("store"))
        .await
        .unwrap();
    let chats = store.locks("chats");
    let old = chats.acquire("42").await.unwrap();
    old.release().await.unwrap();
    let new = chats.acquire("42").await.unwrap();
    let k = key("told");
    guard::set(&mut conn, &k, "new", &new).await.unwrap();
    let refused = guard::hset(&mut conn, &k, &[("f", "late")], &old).await;
    assert_eq!(refused.unwrap_err().code(), Code::Stale);
    guard::del(&mut conn, &k, old.fence()).await.unwrap_err(); // the fence alone: told to nobody
    let told = store.status().await.unwrap().late_writes_refused;
    assert_eq!(
        told,
        vec![tinystore::RefusedStatus {
            name: "chats".into(),
            kind: "lock".into(),
            refused: 1
        }]
    );
}
