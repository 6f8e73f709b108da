//! The 2025-11-25 specification's tasks, for clients of that version that did not declare
//! the extension: the same tasks, read and steered through the methods that version
//! defines.
//!
//! - `tasks/get` reports the task alone (`ttl`, `pollInterval`); a tool's error result
//!   ends it `failed` (the extension says `completed` and lets the result's `isError`
//!   tell).
//! - `tasks/result` waits for the end and answers what the call would have answered,
//!   with the task named in `_meta`. Meanwhile the task's questions (its
//!   `inputRequests`) go to the client as requests of their own over this call's stream,
//!   and their answers resume it.
//! - `tasks/list` pages the caller's tasks; `tasks/cancel` ends a running task
//!   `cancelled` before it answers, and refuses a task that has ended.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::{store_error, TaskEvent, Tasks};
use crate::protocol::{DetailedTask, ErrorObject, TaskStatus, RELATED_TASK_META};
use crate::server::context::RequestContext;
use crate::session::RequestOptions;

/// A task as a 2025-11-25 client reads it.
pub(crate) fn view(task: &DetailedTask) -> Value {
    let mut view = task.task.to_2025();
    let tool_error = task.result.as_ref().and_then(|r| r.get("isError")).and_then(Value::as_bool) == Some(true);
    if task.task.status == TaskStatus::Completed && tool_error {
        view["status"] = json!(TaskStatus::Failed.as_str());
        if task.task.status_message.is_none() {
            // Why, as that version asks of a failed task: the tool's own words.
            let said = task.result.as_ref().and_then(|r| r.pointer("/content/0/text")).and_then(Value::as_str);
            view["statusMessage"] = json!(said.unwrap_or("the tool returned an error result"));
        }
    }
    view
}

/// `_meta` naming the task a message belongs to.
fn tag(value: &mut Value, task_id: &str) {
    if let Value::Object(fields) = value {
        let meta = fields.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.insert(RELATED_TASK_META.into(), json!({ "taskId": task_id }));
        }
    }
}

/// Resolves at the next stored change of `task_id` (or when changes were missed).
async fn next_change(events: &mut broadcast::Receiver<TaskEvent>, task_id: &str) {
    loop {
        match events.recv().await {
            Ok(e) if e.task.task.task_id == task_id => return,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => return,
            Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
        }
    }
}

impl Tasks {
    /// `tasks/get` (2025-11-25).
    pub(crate) async fn get_2025(&self, task_id: &str, owner: Option<&str>) -> Result<Value, ErrorObject> {
        Ok(view(&self.record(task_id, owner).await?.task))
    }

    /// `tasks/list`: `owner`'s tasks, oldest first, `size` a page. Tasks without an owner
    /// (the stateless era without authorization, where a task's id is all that guards
    /// it) are nobody's to list.
    pub(crate) async fn list(&self, owner: Option<&str>, cursor: Option<&str>, size: usize) -> Result<Value, ErrorObject> {
        let ids = match owner {
            Some(owner) => self.options.store.list(owner).await.map_err(store_error)?,
            None => Vec::new(),
        };
        let (page, next) = crate::server::registry::page(ids.into_iter(), cursor, size)?;
        let mut tasks = Vec::with_capacity(page.len());
        for id in page {
            // Gone since the index was read: left out.
            if let Some(record) = self.options.store.get(&id).await.map_err(store_error)? {
                if record.owner.as_deref() == owner {
                    tasks.push(view(&record.task));
                }
            }
        }
        let mut answer = json!({ "tasks": tasks });
        if let Some(next) = next {
            answer["nextCursor"] = json!(next);
        }
        Ok(answer)
    }

    /// `tasks/cancel` (2025-11-25): the task is `cancelled` in the store before this
    /// answers with it; a task that has ended is -32602.
    pub(crate) async fn cancel_2025(&self, task_id: &str, owner: Option<&str>) -> Result<Value, ErrorObject> {
        let ended = |status: TaskStatus| {
            ErrorObject::invalid_params(format!("task {task_id} is already {}: it cannot be cancelled", status.as_str()))
        };
        let record = self.record(task_id, owner).await?;
        if record.task.task.status.is_terminal() {
            return Err(ended(record.task.task.status));
        }
        match self.mark_cancelled(record).await? {
            Some(task) => Ok(view(&task)),
            // It ended between the read and the write.
            None => Err(ended(self.record(task_id, owner).await?.task.task.status)),
        }
    }

    /// `tasks/result`: waits until the task ends, putting its questions to the client
    /// meanwhile, and answers what the call would have answered.
    pub(crate) async fn result(
        self: &Arc<Self>,
        task_id: &str,
        owner: Option<&str>,
        ctx: &RequestContext,
    ) -> Result<Value, ErrorObject> {
        // Subscribed before the first read: a change after it is not missed.
        let mut events = self.subscribe();
        // The questions this call put: withdrawn when it ends.
        let asking = CancellationToken::new();
        let _withdraw = asking.clone().drop_guard();
        // Questions the client refused during this call: not put again by it.
        let refused = Arc::new(Mutex::new(HashSet::new()));
        loop {
            let task = self.record(task_id, owner).await?.task;
            match task.task.status {
                TaskStatus::Completed => {
                    let mut result =
                        task.result.ok_or_else(|| ErrorObject::internal(format!("task {task_id} completed without a result")))?;
                    tag(&mut result, task_id);
                    return Ok(result);
                }
                TaskStatus::Failed => {
                    let error = task.error.and_then(|e| serde_json::from_value(e).ok());
                    return Err(error.unwrap_or_else(|| ErrorObject::internal(format!("task {task_id} failed"))));
                }
                TaskStatus::Cancelled => {
                    return Err(ErrorObject::internal(format!("task {task_id} was cancelled: it has no result")));
                }
                TaskStatus::InputRequired => {
                    for (key, request) in task.input_requests.unwrap_or_default() {
                        self.forward(task_id, owner, (key, request), ctx, (&asking, &refused));
                    }
                }
                TaskStatus::Working => {}
            }
            tokio::select! {
                _ = ctx.cancel.cancelled() => {
                    return Err(ErrorObject::internal("tasks/result was cancelled"));
                }
                _ = next_change(&mut events, task_id) => {}
                // Another node's changes reach this one through the store.
                _ = tokio::time::sleep(self.options.poll_interval) => {}
            }
        }
    }

    /// Puts one of the task's questions to the client over the `tasks/result` call's
    /// stream, once; its answer goes to the task as `tasks/update` would take it.
    fn forward(
        self: &Arc<Self>,
        task_id: &str,
        owner: Option<&str>,
        (key, request): (String, Value),
        ctx: &RequestContext,
        (asking, refused): (&CancellationToken, &Arc<Mutex<HashSet<String>>>),
    ) {
        if refused.lock().unwrap_or_else(|e| e.into_inner()).contains(&key) {
            return;
        }
        let slot = (task_id.to_string(), key.clone());
        if !self.forwarding.lock().unwrap_or_else(|e| e.into_inner()).insert(slot.clone()) {
            return; // another call is asking it
        }
        let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
        let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        tag(&mut params, task_id);
        let options = RequestOptions::default().cancel_token(asking.child_token()).during(ctx.id.clone());
        let (tasks, peer, refused) = (self.clone(), ctx.peer().clone(), refused.clone());
        let owner = owner.map(str::to_owned);
        tokio::spawn(async move {
            let (task_id, _) = &slot;
            match peer.request(&method, Some(params), options).await {
                Ok(answer) => {
                    if let Err(e) = tasks.update(task_id, owner.as_deref(), Map::from_iter([(key, answer)])).await {
                        tracing::warn!("task {task_id}: the client's answer to its {method} was not taken: {}", e.message);
                    }
                }
                Err(e) => {
                    tracing::warn!("task {task_id}: the client did not answer its {method}: {e}");
                    refused.lock().unwrap_or_else(|e| e.into_inner()).insert(key);
                }
            }
            tasks.forwarding.lock().unwrap_or_else(|e| e.into_inner()).remove(&slot);
        });
    }
}
