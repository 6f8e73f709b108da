//! The engine's central invariant: after any mix of completions, errors, panics,
//! timeouts, cancels from both sides, dropped futures and disconnects, the pending and
//! in-flight maps on both sides are empty and every caller was answered exactly once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use oxmcp::protocol::ErrorObject;
use oxmcp::session::{IncomingRequest, RequestOptions, Service, Session, SessionConfig, SessionStats};
use oxmcp::transport::MemoryTransport;
use oxmcp::ErrorKind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// Behaves as each request's params say: answer, fail, panic or sleep first.
struct Chaos;

impl Service for Chaos {
    fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        Box::pin(async move {
            let p = req.params.unwrap_or_default();
            let ms = p["ms"].as_u64().unwrap_or(0);
            if ms > 0 {
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            match p["op"].as_str() {
                Some("err") => Err(ErrorObject::new(-32000, "asked to fail")),
                Some("panic") => panic!("asked to panic"),
                _ => Ok(json!({ "echo": p["n"] })),
            }
        })
    }
}

#[derive(Default)]
struct Tally {
    spawned: AtomicUsize,
    answered: AtomicUsize,
    abandoned: AtomicUsize,
    ok: AtomicUsize,
    rpc_error: AtomicUsize,
    timeout: AtomicUsize,
    cancelled: AtomicUsize,
    closed: AtomicUsize,
}

/// Fires `count` requests from `from` with random fates; returns when every caller ended.
async fn storm(from: oxmcp::session::Peer, count: usize, seed: u64, tally: Arc<Tally>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tasks = Vec::with_capacity(count);
    for n in 0..count {
        let peer = from.clone();
        let tally = tally.clone();
        let fate: u32 = rng.random_range(0..100);
        let ms: u64 = rng.random_range(0..20);
        let delay: u64 = rng.random_range(0..10);
        tally.spawned.fetch_add(1, Ordering::Relaxed);
        tasks.push(tokio::spawn(async move {
            let (op, options, cancel_after, drop_after) = match fate {
                0..=39 => ("ok", RequestOptions::default(), None, None),
                40..=54 => ("err", RequestOptions::default(), None, None),
                55..=59 => ("panic", RequestOptions::default(), None, None),
                60..=69 => ("ok", RequestOptions::default().timeout(Duration::from_millis(ms / 2 + 1)), None, None),
                70..=84 => ("ok", RequestOptions::default(), Some(delay), None),
                _ => ("ok", RequestOptions::default(), None, Some(delay)),
            };
            let token = CancellationToken::new();
            let options = options.cancel_token(token.clone());
            if let Some(d) = cancel_after {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(d)).await;
                    token.cancel();
                });
            }
            let call = peer.request("chaos", Some(json!({ "op": op, "ms": ms, "n": n })), options);
            let outcome = match drop_after {
                // None: the timeout dropped the future mid-flight.
                Some(d) => tokio::time::timeout(Duration::from_millis(d), call).await.ok(),
                None => Some(call.await),
            };
            match outcome {
                None => tally.abandoned.fetch_add(1, Ordering::Relaxed),
                Some(r) => {
                    tally.answered.fetch_add(1, Ordering::Relaxed);
                    match r {
                        Ok(v) => {
                            assert_eq!(v["echo"], json!(n), "a caller got another request's result");
                            tally.ok.fetch_add(1, Ordering::Relaxed)
                        }
                        Err(e) => match e.kind() {
                            ErrorKind::Rpc => tally.rpc_error.fetch_add(1, Ordering::Relaxed),
                            ErrorKind::Timeout => tally.timeout.fetch_add(1, Ordering::Relaxed),
                            ErrorKind::Cancelled => tally.cancelled.fetch_add(1, Ordering::Relaxed),
                            ErrorKind::Closed => tally.closed.fetch_add(1, Ordering::Relaxed),
                            other => panic!("unexpected error kind {other:?}: {e}"),
                        },
                    }
                }
            };
        }));
        if n % 64 == 0 {
            tokio::task::yield_now().await;
        }
    }
    for t in tasks {
        t.await.expect("a caller task panicked");
    }
}

async fn wait_until_empty(a: &oxmcp::session::Peer, b: &oxmcp::session::Peer) {
    for _ in 0..2000 {
        if a.stats() == SessionStats::default() && b.stats() == SessionStats::default() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("maps not empty: a={:?} b={:?}", a.stats(), b.stats());
}

async fn run_rounds(rounds: u64, per_side: usize, seed: u64) -> Arc<Tally> {
    let tally = Arc::new(Tally::default());
    for round in 0..rounds {
        let (ta, tb) = MemoryTransport::pair();
        let config = SessionConfig { max_concurrent_requests: 64, ..Default::default() };
        let a = Session::start(ta, Arc::new(Chaos), config.clone());
        let b = Session::start(tb, Arc::new(Chaos), config);
        let (pa, pb) = (a.peer().clone(), b.peer().clone());
        let disconnect = round % 4 == 3;
        let killer = disconnect.then(|| {
            let pb = pb.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(15)).await;
                pb.close("simulated disconnect");
            })
        });
        let s1 = storm(pa.clone(), per_side, seed ^ (round * 2), tally.clone());
        let s2 = storm(pb.clone(), per_side, seed ^ (round * 2 + 1), tally.clone());
        tokio::join!(s1, s2);
        if let Some(k) = killer {
            k.await.unwrap();
        }
        // Still connected (unless this round disconnected): the maps must drain by themselves.
        wait_until_empty(&pa, &pb).await;
        drop((a, b));
        wait_until_empty(&pa, &pb).await;
    }
    let t = &tally;
    let (spawned, answered, abandoned) =
        (t.spawned.load(Ordering::Relaxed), t.answered.load(Ordering::Relaxed), t.abandoned.load(Ordering::Relaxed));
    assert_eq!(spawned, answered + abandoned, "every caller ends exactly once");
    for (name, n) in
        [("ok", &t.ok), ("rpc_error", &t.rpc_error), ("timeout", &t.timeout), ("cancelled", &t.cancelled), ("closed", &t.closed)]
    {
        assert!(n.load(Ordering::Relaxed) > 0, "the mix never produced {name}");
    }
    assert!(abandoned > 0, "the mix never dropped a future");
    eprintln!(
        "{spawned} requests: ok {} rpc-error {} timeout {} cancelled {} closed {} abandoned {abandoned}",
        t.ok.load(Ordering::Relaxed),
        t.rpc_error.load(Ordering::Relaxed),
        t.timeout.load(Ordering::Relaxed),
        t.cancelled.load(Ordering::Relaxed),
        t.closed.load(Ordering::Relaxed)
    );
    tally
}

/// 100,000 requests each way under virtual time (sleeps cost nothing, so the mix is large).
#[tokio::test(start_paused = true)]
async fn hundred_thousand_each_way_leave_no_trace() {
    let tally = run_rounds(20, 5_000, 0x5eed).await;
    assert!(tally.spawned.load(Ordering::Relaxed) >= 200_000);
}

/// The same on two real threads with real time, to shake out races the virtual clock hides.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_threads_and_clock_leave_no_trace() {
    run_rounds(8, 1_500, 0xfeed).await;
}
