//! What a server's tools, resources, prompts and completions are: async functions of their
//! arguments and a [`RequestContext`]. Plain closures implement these traits; host-language
//! bindings implement them by calling into the host.

use std::collections::BTreeMap;
use std::future::Future;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::context::RequestContext;
use crate::error::Result;
use crate::protocol::{CallToolResult, CompleteRequestParams, Completion, GetPromptResult, ReadResourceResult};

/// Tool arguments as a JSON object (already validated against the tool's input schema).
pub type Arguments = Map<String, Value>;

/// Runs a tool. An `Err` that carries a JSON-RPC error ([`crate::Error::rpc`]: kind
/// [`crate::ErrorKind::Rpc`], or a missing client capability in the stateless era) becomes
/// that JSON-RPC error; any other `Err` becomes a tool result with `isError: true` and the error's message, as the
/// specification asks for tool execution failures.
pub trait ToolHandler: Send + Sync + 'static {
    /// Calls the tool.
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>>;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(Arguments, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult>> + Send + 'static,
{
    fn call(&self, arguments: Arguments, ctx: RequestContext) -> BoxFuture<'static, Result<CallToolResult>> {
        Box::pin(self(arguments, ctx))
    }
}

/// What a resource read receives: the URI asked for, and the template variables when it
/// matched a resource template (empty for a plain resource).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRequest {
    /// The requested URI.
    pub uri: String,
    /// Variables of the matched template.
    pub variables: BTreeMap<String, String>,
}

/// Reads a resource (or a resource template's instance).
pub trait ResourceHandler: Send + Sync + 'static {
    /// Reads it.
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, Result<ReadResourceResult>>;
}

impl<F, Fut> ResourceHandler for F
where
    F: Fn(ResourceRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
{
    fn read(&self, request: ResourceRequest, ctx: RequestContext) -> BoxFuture<'static, Result<ReadResourceResult>> {
        Box::pin(self(request, ctx))
    }
}

/// Prompt arguments (string to string, as the specification defines them).
pub type PromptArguments = BTreeMap<String, String>;

/// Renders a prompt.
pub trait PromptHandler: Send + Sync + 'static {
    /// Renders it with the given arguments (required ones are checked before the call).
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, Result<GetPromptResult>>;
}

impl<F, Fut> PromptHandler for F
where
    F: Fn(PromptArguments, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult>> + Send + 'static,
{
    fn get(&self, arguments: PromptArguments, ctx: RequestContext) -> BoxFuture<'static, Result<GetPromptResult>> {
        Box::pin(self(arguments, ctx))
    }
}

/// Suggests values for a prompt argument or a resource template variable.
pub trait CompletionHandler: Send + Sync + 'static {
    /// Completes `params.argument.value`.
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, Result<Completion>>;
}

impl<F, Fut> CompletionHandler for F
where
    F: Fn(CompleteRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Completion>> + Send + 'static,
{
    fn complete(&self, params: CompleteRequestParams, ctx: RequestContext) -> BoxFuture<'static, Result<Completion>> {
        Box::pin(self(params, ctx))
    }
}
