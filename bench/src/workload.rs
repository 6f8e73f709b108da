//! The workloads shared by every transport: checked `echo` calls, one at a time or with K
//! in flight.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxmcp::client::Client;
use serde_json::{Map, Value};

use crate::stats::quantile;

/// Length of the call-number prefix written at the start of each payload (so that every
/// call sends, and must get back, a different text).
const TAG: usize = 10;

/// A payload of `len` printable bytes (a-z repeated).
pub fn base_payload(len: usize) -> String {
    (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect()
}

/// The text sent by call `i`: the base payload with `i` written over its first bytes.
pub fn payload_for(base: &str, i: usize) -> String {
    let mut s = String::with_capacity(base.len());
    if base.len() >= TAG {
        let _ = write!(s, "{:0width$}", i % 10usize.pow(TAG as u32), width = TAG);
        s.push_str(&base[TAG..]);
    } else {
        s.push_str(base);
    }
    s
}

/// Whether `got` is exactly what call `i` sent (checked without rebuilding the text).
pub fn is_payload_for(got: &str, base: &str, i: usize) -> bool {
    if base.len() < TAG {
        return got == base;
    }
    got.len() == base.len()
        && got.is_char_boundary(TAG)
        && got[TAG..] == base[TAG..]
        && got[..TAG].parse::<usize>().ok() == Some(i % 10usize.pow(TAG as u32))
}

/// One `echo` call whose reply is checked.
pub async fn echo(client: &Client, base: &str, i: usize) -> Result<(), String> {
    let mut args = Map::with_capacity(1);
    args.insert("text".to_owned(), Value::String(payload_for(base, i)));
    let result = client.call_tool("echo", Value::Object(args)).await.map_err(|e| format!("echo call {i} failed: {e}"))?;
    if result.is_error == Some(true) {
        return Err(format!("echo call {i} returned an error result: {:?}", result.content));
    }
    match result.content.as_slice() {
        [block] => match block.as_text() {
            Some(text) if is_payload_for(text, base, i) => Ok(()),
            Some(text) => Err(format!(
                "echo call {i}: reply text differs from what was sent ({} bytes sent, {} received)",
                base.len(),
                text.len()
            )),
            None => Err(format!("echo call {i}: reply is not a text block")),
        },
        other => Err(format!("echo call {i}: expected one content block, got {}", other.len())),
    }
}

/// One measured batch of calls.
#[derive(Debug, Clone, Default)]
pub struct Calls {
    pub n: usize,
    pub elapsed: Duration,
    /// Per-call latencies, sorted.
    pub lat_ns: Vec<u64>,
}

impl Calls {
    /// Calls per second over the wall time of the batch.
    pub fn rate(&self) -> f64 {
        self.n as f64 / self.elapsed.as_secs_f64()
    }
    /// A latency quantile in microseconds.
    pub fn us(&self, q: f64) -> f64 {
        quantile(&self.lat_ns, q) / 1e3
    }
}

/// `n` calls one after the other.
pub async fn sequential(client: &Client, base: &str, n: usize) -> Result<Calls, String> {
    let mut lat_ns = Vec::with_capacity(n);
    let started = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        echo(client, base, i).await?;
        lat_ns.push(t.elapsed().as_nanos() as u64);
    }
    let elapsed = started.elapsed();
    lat_ns.sort_unstable();
    Ok(Calls { n, elapsed, lat_ns })
}

/// `n` calls with `k` in flight: `k` tasks share the client, each issuing its next call as
/// soon as its previous one returns.
pub async fn concurrent(client: &Arc<Client>, base: &str, n: usize, k: usize) -> Result<Calls, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let workers = k.min(n.max(1));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(workers);
    for _ in 0..workers {
        let client = client.clone();
        let next = next.clone();
        let base = base.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(n / workers + 1);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return Ok::<_, String>(lat);
                }
                let t = Instant::now();
                echo(&client, &base, i).await?;
                lat.push(t.elapsed().as_nanos() as u64);
            }
        }));
    }
    let mut lat_ns = Vec::with_capacity(n);
    let mut failure = None;
    for task in tasks {
        match task.await {
            Ok(Ok(lat)) => lat_ns.extend(lat),
            Ok(Err(e)) => {
                failure.get_or_insert(e);
            }
            Err(e) => {
                failure.get_or_insert(format!("a concurrent worker failed: {e}"));
            }
        }
    }
    let elapsed = started.elapsed();
    if let Some(e) = failure {
        return Err(e);
    }
    lat_ns.sort_unstable();
    Ok(Calls { n, elapsed, lat_ns })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_differ_per_call_and_check_back() {
        let base = base_payload(100);
        let p7 = payload_for(&base, 7);
        assert_eq!(p7.len(), 100);
        assert!(is_payload_for(&p7, &base, 7));
        assert!(!is_payload_for(&p7, &base, 8));
        assert!(!is_payload_for(&payload_for(&base, 8), &base, 7));
        let short = base_payload(3);
        assert!(is_payload_for(&payload_for(&short, 5), &short, 5));
    }
}
