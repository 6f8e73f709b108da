//! [`RedisStore`]: the shared store on a Redis server (6.2 or later), through the `redis`
//! crate's connection manager (it reconnects by itself) and one pub/sub connection.
//!
//! Keys, all under a prefix (default `oxmcp`): `{p}:s:{id}` a session record (a string
//! with a TTL), `{p}:l:{log}` an event log (a Stream whose entry ids are `{n}-0`, `n`
//! counting from 1 in `{p}:n:{log}`, so positions are consecutive and a replay can tell a
//! gap), `{p}:c:{log}` a reader's cursor, `{p}:v:{key}` a record of another kind (a task),
//! `{p}:k:{name}` a shared secret, and the channel
//! `{p}:bus`.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::StreamExt;
use redis::aio::ConnectionManager;
use redis::{AsyncCommands, Script};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::{BusMessage, Entries, LogEntry, SharedStore, StoreError, StoreResult};

/// Entries kept per event log (older ones are trimmed; a replay from before them is
/// refused).
const LOG_LIMIT: usize = 1024;
/// The longest any one Redis call may take before it fails.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// Appends entries in order, each with its log's next consecutive position (KEYS: stream
/// and counter of each entry's log; ARGV: expiry ms, length bound, bus channel, then each
/// entry and its log's bus message), bounds the logs, renews their expiry and tells the
/// bus once per log, in one step; returns the positions.
const APPEND: &str = r"
local out, told = {}, {}
for i = 1, #KEYS / 2 do
  local stream, counter = KEYS[2 * i - 1], KEYS[2 * i]
  local n = redis.call('INCR', counter)
  redis.call('XADD', stream, 'MAXLEN', ARGV[2], n .. '-0', 'e', ARGV[2 + 2 * i])
  redis.call('PEXPIRE', stream, ARGV[1])
  redis.call('PEXPIRE', counter, ARGV[1])
  if not told[stream] then
    told[stream] = true
    redis.call('PUBLISH', ARGV[3], ARGV[3 + 2 * i])
  end
  out[i] = n
end
return out
";

/// The entries after ARGV[1] as `ok, pos, entry, pos, entry...`, or `none` when the log is
/// gone or its oldest entry is past ARGV[2] (= ARGV[1] + 1: the replay would have a gap).
const READ: &str = r"
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #first == 0 then return {'none'} end
if tonumber(string.match(first[1][1], '^(%d+)')) > tonumber(ARGV[2]) then return {'none'} end
local out = {'ok'}
for _, row in ipairs(redis.call('XRANGE', KEYS[1], ARGV[2] .. '-0', '+')) do
  table.insert(out, string.match(row[1], '^(%d+)'))
  table.insert(out, row[2][2])
end
return out
";

/// Moves a cursor forward only, renewing its expiry; returns where it is.
const CURSOR: &str = r"
local at = tonumber(redis.call('GET', KEYS[1]) or '0')
local set = tonumber(ARGV[1])
if set > at then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return tostring(at)
";

/// Sets KEYS[1] to ARGV[3] if it holds ARGV[2] (ARGV[1] = 1) or does not exist (ARGV[1] =
/// 0); ARGV[4] is the expiry in ms, 0 to keep the key's own.
const SWAP: &str = r"
local cur = redis.call('GET', KEYS[1])
if (ARGV[1] == '0' and cur == false) or (ARGV[1] == '1' and cur == ARGV[2]) then
  if ARGV[4] == '0' then
    redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
  else
    redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
  end
  return 1
end
return 0
";

/// A [`SharedStore`](super::SharedStore) on a Redis server.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> Result<(), oxmcp::store::StoreError> {
/// let store = oxmcp::store::RedisStore::connect("redis://127.0.0.1:6379", "oxmcp").await?;
/// # drop(store); Ok(()) }
/// ```
pub struct RedisStore {
    conn: ConnectionManager,
    prefix: String,
    bus: broadcast::Sender<BusMessage>,
    scripts: Arc<(Script, Script, Script, Script)>,
    /// Stops the pub/sub task when the store goes.
    stop: CancellationToken,
}

impl Drop for RedisStore {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn err(e: redis::RedisError) -> StoreError {
    StoreError(format!("redis: {e}"))
}

/// Runs one Redis call (`operation`: its command or script, for telemetry) within
/// [`CALL_TIMEOUT`]: a client span under the request that waits on it, and a failure counted.
async fn bounded<T>(operation: &'static str, call: impl std::future::Future<Output = redis::RedisResult<T>>) -> StoreResult<T> {
    let step = crate::telemetry::Step::store_call("redis", operation);
    let (result, kind) = match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(r) => (r.map_err(err), "redis_error"),
        Err(_) => (Err(StoreError("redis did not answer in time".into())), "timeout"),
    };
    if let Err(e) = &result {
        crate::telemetry::count_store_error(operation);
        if let Some(step) = step {
            step.end(Err((kind, &e.0)));
        }
    }
    result
}

fn millis(d: Duration) -> u64 {
    d.as_millis().clamp(1, u64::MAX as u128) as u64
}

impl RedisStore {
    /// Connects to `url` (`redis://host:port[/db]`), keeping every key under `prefix`.
    /// Fails if the server cannot be reached now; once connected, the store reconnects by
    /// itself after an outage (calls fail meanwhile).
    pub async fn connect(url: &str, prefix: &str) -> StoreResult<RedisStore> {
        let client = redis::Client::open(url).map_err(err)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let conn = bounded("CONNECT", ConnectionManager::new_with_config(client.clone(), config)).await?;
        let (bus, _) = broadcast::channel(4096);
        let stop = CancellationToken::new();
        let channel = format!("{prefix}:bus");
        tokio::spawn(listen(client, channel, bus.clone(), stop.clone()));
        Ok(RedisStore {
            conn,
            prefix: prefix.to_string(),
            bus,
            scripts: Arc::new((Script::new(APPEND), Script::new(READ), Script::new(CURSOR), Script::new(SWAP))),
            stop,
        })
    }

    fn key(&self, kind: &str, name: &str) -> String {
        format!("{}:{kind}:{name}", self.prefix)
    }
}

/// Hears the bus until the store goes: reconnects after an outage and then says
/// [`BusMessage::Resumed`], since messages published meanwhile are lost.
async fn listen(client: redis::Client, channel: String, bus: broadcast::Sender<BusMessage>, stop: CancellationToken) {
    let mut first = true;
    loop {
        let connected = async {
            let mut pubsub = bounded("CONNECT", client.get_async_pubsub()).await?;
            bounded("SUBSCRIBE", pubsub.subscribe(&channel)).await?;
            Ok::<_, StoreError>(pubsub)
        };
        let pubsub = tokio::select! {
            c = connected => c,
            _ = stop.cancelled() => return,
        };
        match pubsub {
            Ok(mut pubsub) => {
                if !first {
                    let _ = bus.send(BusMessage::Resumed);
                }
                first = false;
                let mut messages = pubsub.on_message();
                loop {
                    let msg = tokio::select! {
                        m = messages.next() => m,
                        _ = stop.cancelled() => return,
                    };
                    let Some(msg) = msg else { break };
                    let payload = msg.get_payload_bytes();
                    let heard = match payload.split_first() {
                        Some((b'g', log)) => BusMessage::Grew(String::from_utf8_lossy(log).into_owned()),
                        Some((b'p', body)) => BusMessage::Published(Bytes::copy_from_slice(body)),
                        _ => continue,
                    };
                    let _ = bus.send(heard);
                }
                tracing::warn!("lost the redis pub/sub connection; reconnecting");
            }
            Err(e) => tracing::debug!("redis pub/sub: {e}"),
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = stop.cancelled() => return,
        }
    }
}

impl SharedStore for RedisStore {
    fn put_session(&self, id: &str, record: Bytes, ttl: Duration) -> BoxFuture<'_, StoreResult<()>> {
        let key = self.key("s", id);
        let mut conn = self.conn.clone();
        Box::pin(async move { bounded("PSETEX", conn.pset_ex::<_, _, ()>(key, record.as_ref(), millis(ttl))).await })
    }

    fn get_session(&self, id: &str, ttl: Duration) -> BoxFuture<'_, StoreResult<Option<Bytes>>> {
        let key = self.key("s", id);
        let mut conn = self.conn.clone();
        Box::pin(async move {
            let got: Option<Vec<u8>> =
                bounded("GETEX", redis::cmd("GETEX").arg(key).arg("PX").arg(millis(ttl)).query_async(&mut conn)).await?;
            Ok(got.map(Bytes::from))
        })
    }

    fn delete_session(&self, id: &str) -> BoxFuture<'_, StoreResult<bool>> {
        let key = self.key("s", id);
        let mut conn = self.conn.clone();
        Box::pin(async move { Ok(bounded("DEL", conn.del::<_, u64>(key)).await? > 0) })
    }

    fn append_many(&self, entries: Vec<(String, LogEntry)>, ttl: Duration) -> BoxFuture<'_, StoreResult<Vec<u64>>> {
        let mut call = self.scripts.0.prepare_invoke();
        call.arg(millis(ttl)).arg(LOG_LIMIT).arg(format!("{}:bus", self.prefix));
        for (log, entry) in &entries {
            call.key(self.key("l", log)).key(self.key("n", log));
            call.arg(entry.encode()).arg([b"g".as_slice(), log.as_bytes()].concat());
        }
        let mut conn = self.conn.clone();
        Box::pin(async move {
            if entries.is_empty() {
                return Ok(Vec::new());
            }
            bounded("EVALSHA append", call.invoke_async::<Vec<u64>>(&mut conn)).await
        })
    }

    fn read(&self, log: &str, after: u64) -> BoxFuture<'_, StoreResult<Option<Entries>>> {
        let stream = self.key("l", log);
        let mut conn = self.conn.clone();
        let scripts = self.scripts.clone();
        Box::pin(async move {
            let mut call = scripts.1.key(stream);
            call.arg(after).arg(after + 1);
            let reply: Vec<Vec<u8>> = bounded("EVALSHA read", call.invoke_async(&mut conn)).await?;
            let mut parts = reply.into_iter();
            if parts.next().as_deref() != Some(b"ok") {
                return Ok(None);
            }
            let mut out = Vec::new();
            while let (Some(at), Some(entry)) = (parts.next(), parts.next()) {
                let at = std::str::from_utf8(&at).ok().and_then(|s| s.parse().ok());
                // Nothing but this module writes these keys; skip anything else found there.
                if let (Some(at), Some(entry)) = (at, LogEntry::decode(&entry)) {
                    out.push((at, entry));
                }
            }
            Ok(Some(out))
        })
    }

    fn cursor(&self, log: &str, set: Option<u64>, ttl: Duration) -> BoxFuture<'_, StoreResult<u64>> {
        let key = self.key("c", log);
        let mut conn = self.conn.clone();
        let scripts = self.scripts.clone();
        Box::pin(async move {
            let mut call = scripts.2.key(key);
            call.arg(set.unwrap_or(0)).arg(millis(ttl));
            let at: String = bounded("EVALSHA cursor", call.invoke_async(&mut conn)).await?;
            Ok(at.parse().unwrap_or(0))
        })
    }

    fn publish(&self, message: Bytes) -> BoxFuture<'_, StoreResult<()>> {
        let channel = format!("{}:bus", self.prefix);
        let payload = [b"p".as_slice(), &message].concat();
        let mut conn = self.conn.clone();
        Box::pin(async move { bounded("PUBLISH", conn.publish::<_, _, ()>(channel, payload)).await })
    }

    fn subscribe(&self) -> broadcast::Receiver<BusMessage> {
        self.bus.subscribe()
    }

    fn get_value(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Bytes>>> {
        let key = self.key("v", key);
        let mut conn = self.conn.clone();
        Box::pin(async move { Ok(bounded("GET", conn.get::<_, Option<Vec<u8>>>(key)).await?.map(Bytes::from)) })
    }

    fn swap_value(
        &self,
        key: &str,
        expected: Option<Bytes>,
        new: Bytes,
        ttl: Option<Duration>,
    ) -> BoxFuture<'_, StoreResult<bool>> {
        let key = self.key("v", key);
        let mut conn = self.conn.clone();
        let scripts = self.scripts.clone();
        Box::pin(async move {
            let mut call = scripts.3.key(key);
            call.arg(u8::from(expected.is_some()))
                .arg(expected.as_deref().unwrap_or_default())
                .arg(new.as_ref())
                .arg(ttl.map_or(0, millis));
            Ok(bounded("EVALSHA swap", call.invoke_async::<i64>(&mut conn)).await? == 1)
        })
    }
}
