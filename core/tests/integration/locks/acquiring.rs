//! `Acquiring`, the cancellable acquire every binding's wait is made of, on
//! real stores: polled now, waited for, and given up from another thread,
//! with the give-up racing the grant many times and nothing leaked.

use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tinystore::binding::StartAcquire;
use tinystore::server::{ServeOptions, Server};
use tinystore::{Code, Lease, Options, Store};

fn runtime() -> Arc<tokio::runtime::Runtime> {
    Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    )
}

/// Waits until `n` callers wait in line on the store.
async fn until_waiting(store: &Store, n: usize) {
    loop {
        let status = store.status().await.unwrap();
        if status.waiting.iter().map(|w| w.waiters).sum::<usize>() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Fails unless nothing is held or waited for, and the key is free. Over
/// a connection a give-up's release or cancel is sent without waiting for
/// its answer, so the store is asked again until it is clean, for up to
/// about 10 s (a leaked lease would stay held for its TTL, 15 s).
async fn nothing_left(store: &Store, key: &str) {
    let mut status = store.status().await.unwrap();
    for _ in 0..10_000 {
        if status.held.is_empty() && status.waiting.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
        status = store.status().await.unwrap();
    }
    assert!(status.held.is_empty(), "a lease leaked: {status:?}");
    assert!(status.waiting.is_empty(), "a waiter stayed: {status:?}");
    let lease = store.locks("race").try_acquire(key).await.unwrap();
    assert!(lease.is_some(), "the key is not free");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poll_now_grants_a_free_key_and_fails_a_bad_one_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let locks = store.locks("now");
    let Poll::Ready(Ok(Some(lease))) = locks.acquiring("k", Options::default()).poll_now() else {
        panic!("a free key on an embedded store is granted at the first poll")
    };
    assert!(lease.is_held());
    let taken = locks.acquiring("k", Options::default());
    assert!(taken.poll_now().is_pending(), "a held key is waited for");
    until_waiting(&store, 1).await;
    taken.give_up();
    assert!(matches!(taken.wait().await, Ok(None)));
    assert!(taken.is_given_up());
    let bad = store.locks("no spaces").acquiring("k", Options::default());
    match bad.poll_now() {
        Poll::Ready(Err(err)) => {
            assert_eq!(err.code(), Code::Invalid);
            assert!(err.message().contains("\"no spaces\""), "{err}");
        }
        other => panic!("a bad name fails at the first poll, not {other:?}"),
    }
    assert!(
        matches!(bad.poll_now(), Poll::Ready(Ok(None))),
        "the outcome is handed out once"
    );
    drop(lease);
    nothing_left(&store, "k").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_runs_out_with_timeout_and_a_grant_is_taken_by_the_waiter() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    let locks = store.locks("race");
    let held = locks.acquire("k").await.unwrap();
    let short = Options {
        wait: Some(Duration::from_millis(30)),
        ..Options::default()
    };
    let err = locks.acquiring("k", short).wait().await.unwrap_err();
    assert_eq!(err.code(), Code::Timeout, "{err}");
    let waiting = locks.acquiring("k", Options::default());
    let waiter = tokio::spawn({
        let waiting = waiting.clone();
        async move { waiting.wait().await }
    });
    until_waiting(&store, 1).await;
    held.release().await.unwrap();
    let lease = waiter.await.unwrap().unwrap().expect("granted");
    assert!(lease.fence() > held.fence());
    waiting.give_up();
    assert!(
        lease.is_held(),
        "a give-up after the outcome was taken changes nothing"
    );
    drop(lease);
    nothing_left(&store, "k").await;
}

/// A blocked waiter on a thread of its own (as Go's is), given up from
/// another thread (as Go's ctx is).
#[test]
fn a_wait_blocked_on_one_thread_is_given_up_from_another() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let store = rt.block_on(Store::open(dir.path())).unwrap();
    let held = rt.block_on(store.locks("race").acquire("k")).unwrap();
    let waiting = {
        let _entered = rt.enter();
        store.locks("race").acquiring("k", Options::default())
    };
    let blocked = std::thread::spawn({
        let (rt, waiting) = (rt.clone(), waiting.clone());
        move || rt.block_on(waiting.wait()).map(|lease| lease.is_some())
    });
    rt.block_on(until_waiting(&store, 1));
    waiting.give_up();
    waiting.give_up();
    assert!(matches!(blocked.join().unwrap(), Ok(false)), "given up");
    rt.block_on(async {
        held.release().await.unwrap();
        nothing_left(&store, "k").await;
    });
}

/// Many times over: a waiter in line, the holder's release (the grant)
/// and a give-up from another thread cross; whoever wins, nothing leaks.
async fn give_ups_racing_grants_leak_nothing(store: &Store, rounds: usize) {
    let locks = store.locks("race");
    let mut taken = 0;
    for round in 0..rounds {
        let holder = locks.acquire("k").await.unwrap();
        let waiting = locks.acquiring("k", Options::default());
        assert!(waiting.poll_now().is_pending(), "round {round}: in line");
        let waiter = tokio::spawn({
            let waiting = waiting.clone();
            async move { waiting.wait().await }
        });
        until_waiting(store, 1).await;
        let giving_up = std::thread::spawn({
            let waiting = waiting.clone();
            move || waiting.give_up()
        });
        if round % 2 == 0 {
            tokio::task::yield_now().await;
        }
        holder.release().await.unwrap();
        giving_up.join().unwrap();
        let lease: Option<Lease> = waiter.await.unwrap().unwrap();
        if let Some(lease) = lease {
            taken += 1;
            lease.release().await.unwrap();
        }
        nothing_left(store, "k").await;
    }
    eprintln!("{taken} of {rounds} grants were taken before the give-up");
}

#[test]
fn give_ups_racing_grants_on_an_embedded_store_leak_nothing() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let store = Store::open(dir.path()).await.unwrap();
        give_ups_racing_grants_leak_nothing(&store, 500).await;
    });
}

#[test]
fn give_ups_racing_grants_over_a_connection_leak_nothing() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let server = Server::start(dir.path(), ServeOptions::default())
            .await
            .unwrap();
        let address = format!("unix:{}", server.socket_path().display());
        let store = Store::connect(&address).await.unwrap();
        give_ups_racing_grants_leak_nothing(&store, 200).await;
        server.shutdown().await.unwrap();
    });
}

/// A waker that counts its wakes and says when one came.
struct Counted(std::sync::atomic::AtomicUsize, tokio::sync::Notify);

impl std::task::Wake for Counted {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.1.notify_one();
    }
}

/// Polls `acquiring` with `waker` each time it is woken, until it is ready.
async fn poll_with_until_ready(
    acquiring: &tinystore::binding::Acquiring<Lease>,
    counted: &Arc<Counted>,
) -> tinystore::Result<Option<Lease>> {
    let waker = std::task::Waker::from(counted.clone());
    loop {
        let woken = counted.1.notified();
        if let Poll::Ready(outcome) = acquiring.poll_with(&waker) {
            return outcome;
        }
        tokio::time::timeout(Duration::from_secs(10), woken)
            .await
            .expect("poll_with's waker was never woken");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poll_with_wakes_its_waker_at_the_grant_and_at_a_give_up() {
    let dir = tempfile::tempdir().unwrap();
    let embedded = Store::open(dir.path().join("embedded")).await.unwrap();
    let server = Server::start(dir.path().join("served"), ServeOptions::default())
        .await
        .unwrap();
    let remote = Store::connect(&format!("unix:{}", server.socket_path().display()))
        .await
        .unwrap();
    for store in [&embedded, &remote] {
        let locks = store.locks("with");
        let holder = locks.acquire("k").await.unwrap();
        let waiting = locks.acquiring("k", Options::default());
        let counted = Arc::new(Counted(Default::default(), Default::default()));
        let waker = std::task::Waker::from(counted.clone());
        assert!(
            waiting.poll_with(&waker).is_pending(),
            "a held key is waited for"
        );
        until_waiting(store, 1).await;
        let fence = holder.fence();
        holder.release().await.unwrap();
        // Only the waker says the key was granted: nothing else polls it.
        let granted = poll_with_until_ready(&waiting, &counted).await.unwrap();
        let granted = granted.expect("the waiter is granted the key");
        assert!(granted.fence() > fence);
        assert!(counted.0.load(std::sync::atomic::Ordering::SeqCst) >= 1);

        // A give-up from another thread wakes it too, and leaves nothing.
        let given_up = locks.acquiring("k", Options::default());
        let counted = Arc::new(Counted(Default::default(), Default::default()));
        let waker = std::task::Waker::from(counted.clone());
        assert!(given_up.poll_with(&waker).is_pending());
        until_waiting(store, 1).await;
        let woken = counted.1.notified();
        let other = given_up.clone();
        std::thread::spawn(move || other.give_up()).join().unwrap();
        tokio::time::timeout(Duration::from_secs(10), woken)
            .await
            .expect("a give-up wakes the waker");
        assert!(matches!(given_up.poll_with(&waker), Poll::Ready(Ok(None))));
        granted.release().await.unwrap();
        nothing_left(store, "k").await;
    }
    remote.close().await.unwrap();
    server.shutdown().await.unwrap();
}
