//! stdio: `oxmcp everything-server --stdio` as a child process over pipes.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxmcp::client::Client;
use oxmcp::transport::ChildProcess;

use crate::workload::{self, Calls};

#[derive(Debug, Clone, Default)]
pub struct StdioRound {
    /// Spawn + initialize.
    pub connect: Duration,
    pub seq: Calls,
    pub conc: Calls,
    /// Large-payload round trips, sorted.
    pub large_lat_ns: Vec<u64>,
}

pub struct StdioParams<'a> {
    pub server: &'a Path,
    pub warmup: usize,
    pub seq: usize,
    pub concurrent: usize,
    pub in_flight: usize,
    pub large_calls: usize,
}

/// One round: spawn, connect, warm up, sequential, K in flight, large payload, close.
pub async fn run_round(p: &StdioParams<'_>, base: &str, large: &str) -> Result<StdioRound, String> {
    let mut round = StdioRound::default();

    let started = Instant::now();
    let transport = ChildProcess::new(p.server)
        .args(["everything-server", "--stdio"])
        .spawn()
        .map_err(|e| format!("cannot start the server {}: {e}", p.server.display()))?;
    let client = Client::builder("oxmcp-bench", env!("CARGO_PKG_VERSION"))
        .era(oxmcp::client::Era::Session)
        .connect(transport)
        .await
        .map_err(|e| format!("connect failed: {e}"))?;
    round.connect = started.elapsed();
    let client = Arc::new(client);

    for i in 0..p.warmup {
        workload::echo(&client, base, i).await?;
    }
    round.seq = workload::sequential(&client, base, p.seq).await?;
    round.conc = workload::concurrent(&client, base, p.concurrent, p.in_flight).await?;
    for i in 0..p.large_calls {
        let t = Instant::now();
        workload::echo(&client, large, i).await?;
        round.large_lat_ns.push(t.elapsed().as_nanos() as u64);
    }
    round.large_lat_ns.sort_unstable();

    match Arc::try_unwrap(client) {
        Ok(client) => client.close().await,
        Err(_) => return Err("the client is still shared after the workloads".into()),
    }
    Ok(round)
}
