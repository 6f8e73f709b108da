//! Composition: a server serves another's tools, prompts, resources and templates under a
//! prefix, the other being a [`Server`] of this process (its handlers run as they are) or
//! a remote server reached through a [`Client`] (each call forwarded).
//!
//! Names take the prefix and an underscore (`weather_forecast`); URIs take it as their
//! first path segment (`notes://a` becomes `notes://weather/a`, and a read of that URI
//! reaches the other server as `notes://a`). What the other server has when it is mounted
//! is what is served: mount it once it is complete.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
//! use oxmcp::server::Server;
//! use oxmcp::protocol::{CallToolResult, Tool};
//! use serde_json::json;
//!
//! let weather = Server::builder("weather", "1")
//!     .tool(Tool::new("forecast", "", json!({"type": "object"})), |_, _| async { Ok(CallToolResult::text("sunny")) })
//!     .build()?;
//! let main = Server::builder("main", "1").mount("weather", &weather)?.build()?;
//! # drop(main);
//! # Ok(()) }
//! ```

use std::sync::Arc;

use futures::future::BoxFuture;

use super::handler::{PromptArguments, ResourceHandler, ResourceRequest};
use super::registry::{PromptEntry, Registry, ResourceEntry};
use super::{RequestContext, Server, ServerBuilder};
use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{methods, ReadResourceResult};
use crate::session::RequestOptions;

/// A prefix names things: letters, digits, `-` and `_`, not empty.
fn check_prefix(prefix: &str) -> Result<()> {
    let fine = !prefix.is_empty() && prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match fine {
        true => Ok(()),
        false => Err(Error::new(ErrorKind::InvalidInput, format!("mount prefix {prefix:?}: use letters, digits, - and _"))),
    }
}

fn prefixed_name(prefix: &str, name: &str) -> String {
    format!("{prefix}_{name}")
}

/// `scheme://rest` -> `scheme://prefix/rest` (a URI without `://` gets `prefix/` in front).
fn prefixed_uri(prefix: &str, uri: &str) -> String {
    match uri.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{prefix}/{rest}"),
        None => format!("{prefix}/{uri}"),
    }
}

/// The inverse of [`prefixed_uri`].
fn original_uri(prefix: &str, uri: &str) -> String {
    let strip = |rest: &str| rest.strip_prefix(prefix).and_then(|r| r.strip_prefix('/')).map(str::to_string);
    match uri.split_once("://") {
        Some((scheme, rest)) => strip(rest).map_or_else(|| uri.to_string(), |r| format!("{scheme}://{r}")),
        None => strip(uri).unwrap_or_else(|| uri.to_string()),
    }
}

/// The other server's resource handler, given the URI it knows.
struct Unprefixed {
    prefix: String,
    inner: Arc<dyn ResourceHandler>,
}

impl ResourceHandler for Unprefixed {
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, Result<ReadResourceResult>> {
        let uri = original_uri(&self.prefix, &request.uri);
        self.inner.read(ResourceRequest { uri, variables: request.variables }, ctx)
    }
}

/// Adds `from`'s entries to `into`, under `prefix`.
fn import(into: &mut Registry, prefix: &str, from: &Registry) -> Result<()> {
    for e in from.tools.values() {
        let mut tool = e.tool.clone();
        tool.name = prefixed_name(prefix, &tool.name);
        let mut entry = Registry::tool_entry(tool, e.handler.clone())?;
        entry.escalating = e.escalating;
        into.tools.insert(entry.tool.name.clone(), Arc::new(entry));
    }
    for e in from.prompts.values() {
        let mut prompt = e.prompt.clone();
        prompt.name = prefixed_name(prefix, &prompt.name);
        into.prompts.insert(prompt.name.clone(), Arc::new(PromptEntry { prompt, handler: e.handler.clone() }));
    }
    for e in from.resources.values() {
        let mut resource = e.resource.clone();
        resource.uri = prefixed_uri(prefix, &resource.uri);
        let handler = Arc::new(Unprefixed { prefix: prefix.to_string(), inner: e.handler.clone() });
        into.resources.insert(resource.uri.clone(), Arc::new(ResourceEntry { resource, handler }));
    }
    for e in from.templates.values() {
        let mut template = e.template.clone();
        template.uri_template = prefixed_uri(prefix, &template.uri_template);
        let handler = Arc::new(Unprefixed { prefix: prefix.to_string(), inner: e.handler.clone() });
        let entry = Registry::template_entry(template, handler)?;
        into.templates.insert(entry.template.uri_template.clone(), Arc::new(entry));
    }
    Ok(())
}

impl ServerBuilder {
    /// Serves `other`'s tools, prompts, resources and templates too, under `prefix` (see
    /// the module docs).
    pub fn mount(mut self, prefix: &str, other: &Server) -> Result<Self> {
        check_prefix(prefix)?;
        let theirs = other.inner.registry.read().unwrap();
        import(&mut self.registry, prefix, &theirs)?;
        drop(theirs);
        Ok(self)
    }
}

impl Server {
    /// Like [`ServerBuilder::mount`], while serving: clients are told the lists changed.
    pub fn mount(&self, prefix: &str, other: &Server) -> Result<()> {
        check_prefix(prefix)?;
        {
            let theirs = other.inner.registry.read().unwrap();
            import(&mut self.inner.registry.write().unwrap(), prefix, &theirs)?;
        }
        self.list_changed();
        Ok(())
    }

    /// Serves what the server at the other end of `client` offers now (its tools, prompts,
    /// resources and templates), under `prefix`: each call, read or prompt is forwarded,
    /// its cancellation too. Clients are told the lists changed.
    pub async fn mount_client(&self, prefix: &str, client: Arc<Client>) -> Result<()> {
        check_prefix(prefix)?;
        let caps = client.server_capabilities().clone();
        let tools = if caps.tools.is_some() { client.list_all_tools().await? } else { Vec::new() };
        let prompts = if caps.prompts.is_some() { client.list_all_prompts().await? } else { Vec::new() };
        let (resources, templates) = match caps.resources.is_some() {
            true => (client.list_all_resources().await?, client.list_all_resource_templates().await?),
            false => (Vec::new(), Vec::new()),
        };
        let mut remote = Server::builder(&self.inner.info.name, &self.inner.info.version);
        for mut tool in tools {
            let (c, name) = (client.clone(), tool.name.clone());
            tool.name = prefixed_name(prefix, &tool.name);
            remote = remote.tool(tool, move |args, ctx: RequestContext| {
                let (c, name) = (c.clone(), name.clone());
                async move {
                    let options = RequestOptions::default().cancel_token(ctx.cancellation_token().clone());
                    c.call_tool_with(&name, serde_json::Value::Object(args), options).await
                }
            });
        }
        for mut prompt in prompts {
            let (c, name) = (client.clone(), prompt.name.clone());
            prompt.name = prefixed_name(prefix, &prompt.name);
            remote = remote.prompt(prompt, move |args: PromptArguments, _| {
                let (c, name) = (c.clone(), name.clone());
                async move { c.get_prompt(&name, args).await }
            });
        }
        let read = |c: Arc<Client>| {
            move |r: ResourceRequest, _| {
                let c = c.clone();
                async move { c.read_resource(&r.uri).await }
            }
        };
        for resource in resources {
            remote = remote.resource(resource, read(client.clone()));
        }
        for template in templates {
            remote = remote.resource_template(template, read(client.clone()));
        }
        // Resources were registered under their own URIs: mounting adds the prefix, and
        // reads reach the forwarding handlers as the remote server knows them.
        let remote = remote.build()?;
        let theirs = remote.inner.registry.read().unwrap();
        let mut ours = self.inner.registry.write().unwrap();
        for (name, e) in &theirs.tools {
            ours.tools.insert(name.clone(), e.clone());
        }
        for (name, e) in &theirs.prompts {
            ours.prompts.insert(name.clone(), e.clone());
        }
        let only_resources =
            Registry { resources: theirs.resources.clone(), templates: theirs.templates.clone(), ..Registry::default() };
        import(&mut ours, prefix, &only_resources)?;
        drop((ours, theirs));
        self.list_changed();
        Ok(())
    }

    fn list_changed(&self) {
        for method in [methods::TOOLS_LIST_CHANGED, methods::PROMPTS_LIST_CHANGED, methods::RESOURCES_LIST_CHANGED] {
            self.broadcast(method);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_take_the_prefix_as_their_first_segment_and_give_it_back() {
        assert_eq!(prefixed_uri("w", "notes://a/b"), "notes://w/a/b");
        assert_eq!(prefixed_uri("w", "notes://{id}"), "notes://w/{id}");
        assert_eq!(original_uri("w", "notes://w/a/b"), "notes://a/b");
        assert_eq!(original_uri("w", "notes://other/a"), "notes://other/a", "not ours: as it came");
        assert_eq!(original_uri("w", &prefixed_uri("w", "plain")), "plain");
        assert!(check_prefix("weather-2_x").is_ok());
        assert!(check_prefix("").is_err() && check_prefix("a b").is_err() && check_prefix("a/b").is_err());
    }
}
