//! `subscriptions/listen` (2026-07-28): the stateless era's only way for a server to tell
//! a client that something changed outside a request.
//!
//! A listen request stays open: the server acknowledges it with the subset of the filter
//! it honours, then sends each list change or resource update that filter asks for, every
//! message tagged with the listen request's id as `io.modelcontextprotocol/subscriptionId`
//! (on stdio all subscriptions share one channel). The client ends it by cancelling the
//! request (stdio) or closing the response stream (HTTP); the server ends it gracefully,
//! at shutdown, by answering it ([`super::Server::end_subscriptions`]).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use crate::protocol::{
    meta, methods, ErrorObject, RequestId, ServerCapabilities, SubscriptionFilter, SubscriptionsListenRequestParams,
    RESULT_COMPLETE, TASKS_EXTENSION,
};
use crate::session::{IncomingRequest, Peer};

/// The open listen streams of a server.
#[derive(Default)]
pub(crate) struct Listeners {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Listener>>,
}

struct Listener {
    peer: Peer,
    id: RequestId,
    filter: SubscriptionFilter,
    /// Cancelled when the server ends the subscription gracefully.
    ended: CancellationToken,
}

impl Listener {
    fn send(&self, method: &str, params: Map<String, Value>) {
        send_tagged(&self.peer, &self.id, method, params);
    }
}

/// Sends a notification of subscription `id`, tagged with it.
fn send_tagged(peer: &Peer, id: &RequestId, method: &str, mut params: Map<String, Value>) {
    params.insert("_meta".into(), json!({ meta::SUBSCRIPTION_ID: id }));
    // A listener whose connection just closed is removed by its own request ending.
    let _ = peer.notify_during(method, Some(Value::Object(params)), id);
}

/// What a listen request may hear of tasks: the changes of the tasks running on this
/// server, and whose tasks the listener may see.
pub(crate) struct TaskFeed {
    pub(crate) events: tokio::sync::broadcast::Receiver<super::tasks::TaskEvent>,
    pub(crate) owner: Option<String>,
    /// Whether the request declared the tasks extension.
    pub(crate) declared: bool,
}

/// Removes a listener when its request ends, however it ends.
struct Registration<'a> {
    listeners: &'a Listeners,
    key: u64,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.listeners.open.lock().unwrap().remove(&self.key);
    }
}

/// What the server agrees to send of what the client asked for: only what it supports.
fn honoured(asked: &SubscriptionFilter, caps: &ServerCapabilities, tasks: bool) -> SubscriptionFilter {
    let yes = |asked: Option<bool>, can: bool| (asked == Some(true) && can).then_some(true);
    let tools = caps.tools.as_ref().is_some_and(|t| t.list_changed == Some(true));
    let prompts = caps.prompts.as_ref().is_some_and(|p| p.list_changed == Some(true));
    let resources_list = caps.resources.as_ref().is_some_and(|r| r.list_changed == Some(true));
    let resources_sub = caps.resources.as_ref().is_some_and(|r| r.subscribe == Some(true));
    SubscriptionFilter {
        tools_list_changed: yes(asked.tools_list_changed, tools),
        prompts_list_changed: yes(asked.prompts_list_changed, prompts),
        resources_list_changed: yes(asked.resources_list_changed, resources_list),
        resource_subscriptions: asked.resource_subscriptions.clone().filter(|_| resources_sub),
        task_ids: asked.task_ids.clone().filter(|_| tasks),
        extra: Map::new(),
    }
}

fn wants(filter: &SubscriptionFilter, method: &str) -> bool {
    let flag = match method {
        methods::TOOLS_LIST_CHANGED => filter.tools_list_changed,
        methods::PROMPTS_LIST_CHANGED => filter.prompts_list_changed,
        methods::RESOURCES_LIST_CHANGED => filter.resources_list_changed,
        _ => None,
    };
    flag == Some(true)
}

/// The most tasks one `subscriptions/listen` stream may follow.
pub(crate) const MAX_LISTENED_TASKS: usize = 1024;

/// The most resource URIs one session (`resources/subscribe`) or one
/// `subscriptions/listen` stream may follow: each is kept for the connection's life and
/// looked at on every update.
pub const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

impl Listeners {
    /// Serves one `subscriptions/listen` request until the client cancels it (no answer)
    /// or the server ends it (the answer, tagged with the subscription's id).
    pub(crate) async fn listen(
        &self,
        req: IncomingRequest,
        caps: &ServerCapabilities,
        mut tasks: TaskFeed,
    ) -> Result<Value, ErrorObject> {
        let IncomingRequest { peer, id, params, cancel, .. } = req;
        let params: SubscriptionsListenRequestParams = serde_json::from_value(params.unwrap_or_else(|| json!({})))
            .map_err(|e| ErrorObject::invalid_params(format!("invalid subscriptions/listen params: {e}")))?;
        if params.notifications.task_ids.as_ref().is_some_and(|t| !t.is_empty()) && !tasks.declared {
            return Err(super::tasks::extension_required("subscriptions/listen with taskIds"));
        }
        // Every change is looked up in these lists: bound what one stream may ask.
        let asked = &params.notifications;
        for (what, count, most) in [
            ("taskIds", asked.task_ids.as_ref().map_or(0, Vec::len), MAX_LISTENED_TASKS),
            ("resourceSubscriptions", asked.resource_subscriptions.as_ref().map_or(0, Vec::len), MAX_RESOURCE_SUBSCRIPTIONS),
        ] {
            if count > most {
                return Err(ErrorObject::invalid_params(format!(
                    "subscriptions/listen names {count} {what}; at most {most} per stream"
                )));
            }
        }
        let has_tasks = caps.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        let filter = honoured(asked, caps, has_tasks);
        let task_ids: HashSet<String> = filter.task_ids.iter().flatten().cloned().collect();
        let ended = CancellationToken::new();
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let tagger = (peer.clone(), id.clone());
        let listener = Listener { peer, id: id.clone(), filter, ended: ended.clone() };
        let _registration = {
            // The acknowledgement goes out under the lock, so no change can reach this
            // subscription before it (the specification requires the ack first).
            let mut open = self.open.lock().unwrap();
            let filter = serde_json::to_value(&listener.filter).unwrap_or_default();
            listener.send(methods::SUBSCRIPTIONS_ACKNOWLEDGED, Map::from_iter([("notifications".into(), filter)]));
            open.insert(key, listener);
            Registration { listeners: self, key }
        };
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Err(ErrorObject::internal("subscription cancelled")),
                _ = ended.cancelled() => {
                    return Ok(json!({ "resultType": RESULT_COMPLETE, "_meta": { meta::SUBSCRIPTION_ID: id } }))
                }
                event = tasks.events.recv(), if !task_ids.is_empty() => match event {
                    Ok(event) => {
                        let mine = event.owner.is_none() || event.owner == tasks.owner;
                        if mine && task_ids.contains(&event.task.task.task_id) {
                            // Each notification carries the task as tasks/get would answer it.
                            if let Ok(Value::Object(params)) = serde_json::to_value(&event.task) {
                                send_tagged(&tagger.0, &tagger.1, methods::TASKS_STATUS, params);
                            }
                        }
                    }
                    // Fell behind: the client still learns the state by polling.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Err(ErrorObject::internal("the server is gone")),
                },
            }
        }
    }

    /// Sends a list change to every subscription that asked for it.
    pub(crate) fn list_changed(&self, method: &str) {
        for l in self.open.lock().unwrap().values().filter(|l| wants(&l.filter, method)) {
            l.send(method, Map::new());
        }
    }

    /// Sends `notifications/resources/updated` to every subscription that names `uri`.
    pub(crate) fn resource_updated(&self, uri: &str) {
        let open = self.open.lock().unwrap();
        for l in open.values().filter(|l| l.filter.resource_subscriptions.iter().flatten().any(|u| u == uri)) {
            l.send(methods::RESOURCES_UPDATED, Map::from_iter([("uri".into(), json!(uri))]));
        }
    }

    /// Ends every subscription with its answer.
    pub(crate) fn end_all(&self) {
        for l in self.open.lock().unwrap().values() {
            l.ended.cancel();
        }
    }

    /// Number of open subscriptions.
    pub(crate) fn count(&self) -> usize {
        self.open.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{PromptsCapability, ResourcesCapability, ToolsCapability};

    #[test]
    fn the_acknowledged_filter_keeps_only_what_the_server_supports() {
        let caps = ServerCapabilities {
            tools: Some(ToolsCapability { list_changed: Some(true), ..Default::default() }),
            resources: Some(ResourcesCapability { subscribe: Some(true), ..Default::default() }),
            ..Default::default()
        };
        let asked = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            resource_subscriptions: Some(vec!["file:///a".into()]),
            task_ids: Some(vec!["t1".into()]),
            extra: Map::new(),
        };
        let got = honoured(&asked, &caps, false);
        assert_eq!(got.tools_list_changed, Some(true));
        assert_eq!(got.prompts_list_changed, None, "no prompts capability");
        assert_eq!(got.resources_list_changed, None, "resources.listChanged not declared");
        assert_eq!(got.resource_subscriptions, Some(vec!["file:///a".to_string()]));
        assert_eq!(got.task_ids, None, "no tasks extension");
        assert_eq!(honoured(&asked, &caps, true).task_ids, Some(vec!["t1".to_string()]));
        let none = honoured(&SubscriptionFilter::default(), &caps, false);
        assert_eq!(none, SubscriptionFilter::default(), "nothing asked, nothing sent");
        let prompts = ServerCapabilities {
            prompts: Some(PromptsCapability { list_changed: Some(true), ..Default::default() }),
            ..Default::default()
        };
        assert!(wants(&honoured(&asked, &prompts, false), methods::PROMPTS_LIST_CHANGED));
        assert!(!wants(&honoured(&asked, &prompts, false), methods::TOOLS_LIST_CHANGED));
    }
}
