//! The server's registries: tools, resources, resource templates, prompts, completion, skills.
//! Entries keep registration order; lists are paginated with opaque cursors.

use std::sync::Arc;

use indexmap::IndexMap;

use super::handler::{CompletionHandler, PromptHandler, ResourceHandler, ToolHandler};
use super::uri_template::UriTemplate;
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::mirrored_headers::{self, HeaderParam};
use crate::protocol::{ErrorObject, Prompt, Resource, ResourceTemplate, Tool};
use crate::schema::Schema;

pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) input: Schema,
    pub(crate) output: Option<Schema>,
    /// The input schema's `x-mcp-header` annotations, found once here so that checking a
    /// call's `Mcp-Param-*` headers does not walk the schema.
    pub(crate) header_params: Arc<[HeaderParam]>,
    pub(crate) handler: Arc<dyn ToolHandler>,
    /// Runs inline until its handler escalates to a task ([`super::tasks::escalating_call`]),
    /// rather than as a task from the start.
    pub(crate) escalating: bool,
}

pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<dyn PromptHandler>,
}

#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) tools: IndexMap<String, Arc<ToolEntry>>,
    pub(crate) resources: IndexMap<String, Arc<ResourceEntry>>,
    pub(crate) templates: IndexMap<String, Arc<TemplateEntry>>,
    pub(crate) prompts: IndexMap<String, Arc<PromptEntry>>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) skills: super::skills::SkillCatalog,
}

impl Registry {
    /// Whether the server offers resources at all: its own, templates, or skill files (the
    /// skills extension requires the capability). What `initialize` declares and what
    /// `resources/subscribe` accepts both follow it.
    pub(crate) fn serves_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty() || !self.skills.is_empty()
    }

    pub(crate) fn tool_entry(tool: Tool, handler: Arc<dyn ToolHandler>) -> Result<ToolEntry> {
        let named = |e: Error| Error::new(ErrorKind::InvalidInput, format!("tool {:?}: {}", tool.name, e.message()));
        let input = Schema::compile(&tool.input_schema).map_err(named)?;
        let output = tool.output_schema.as_ref().map(Schema::compile).transpose().map_err(named)?;
        let header_params = mirrored_headers::header_params(&tool.input_schema)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("tool {:?}: {e}", tool.name)))?
            .into();
        Ok(ToolEntry { tool, input, output, header_params, handler, escalating: false })
    }

    pub(crate) fn template_entry(template: ResourceTemplate, handler: Arc<dyn ResourceHandler>) -> Result<TemplateEntry> {
        let matcher = UriTemplate::parse(&template.uri_template)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("resource template: {e}")))?;
        Ok(TemplateEntry { template, matcher, handler })
    }
}

/// One page of `items` starting at `cursor`, and the cursor of the next page.
///
/// Cursors are opaque to clients: `"o"` and the offset in hexadecimal. A cursor that is
/// not one of ours is -32602, as the specification asks.
pub(crate) fn page<T: Clone>(
    items: impl ExactSizeIterator<Item = T>,
    cursor: Option<&str>,
    size: usize,
) -> std::result::Result<(Vec<T>, Option<String>), ErrorObject> {
    let total = items.len();
    let start = match cursor {
        None => 0,
        Some(c) => c
            .strip_prefix('o')
            .and_then(|hex| usize::from_str_radix(hex, 16).ok())
            .filter(|&o| o <= total)
            .ok_or_else(|| ErrorObject::invalid_params(format!("invalid cursor: {c:?}")))?,
    };
    let page: Vec<T> = items.skip(start).take(size).collect();
    let end = start + page.len();
    Ok((page, (end < total).then(|| format!("o{end:x}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_walk_everything_once() {
        let items: Vec<u32> = (0..7).collect();
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (chunk, next) = page(items.iter().copied(), cursor.as_deref(), 3).unwrap();
            seen.extend(chunk);
            match next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, items);
        assert!(page(items.iter().copied(), Some("garbage"), 3).is_err());
        assert!(page(items.iter().copied(), Some("o99"), 3).is_err());
    }
}
