//! The engine as a whole, through what it offers the rest of the crate.

use super::Engine;
use crate::vocab::Request;
use crate::Options;
use std::future::Future;
use std::task::{Context, Waker};
use std::time::Duration;

fn request(key: &str) -> Request {
    let options = Options {
        ttl: Some(Duration::from_secs(10)),
        renew: Some(false),
        ..Options::default()
    };
    Request::new("n", key, crate::vocab::Ask::Lock, options).unwrap()
}

#[tokio::test]
async fn waits_left_together_give_up_their_places_and_a_crossed_grant() {
    let engine = Engine::new(1, None, None, false);
    let held = engine.try_acquire(&request("k")).unwrap().unwrap();
    let mut cx = Context::from_waker(Waker::noop());
    let mut waits: Vec<_> = (0..100)
        .map(|_| Box::pin(engine.acquire(request("k"))))
        .collect();
    for wait in &mut waits {
        assert!(wait.as_mut().poll(&mut cx).is_pending(), "in the queue");
    }
    let page = crate::StatusPage::default();
    assert_eq!(engine.status(page).waiting[0].waiters, 100);
    // The first in the queue is granted the key, but never polled to take it.
    engine.release(held.id).unwrap();
    engine.leave_together(|| drop(waits));
    let status = engine.status(page);
    assert!(status.waiting.is_empty(), "{status:?}");
    assert!(status.held.is_empty(), "the crossed grant was released");
    assert!(engine.try_acquire(&request("k")).unwrap().is_some());
}
