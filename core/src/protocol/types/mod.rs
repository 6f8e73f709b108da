//! Typed `params` and `result` payloads of MCP requests and notifications, following the
//! 2025-11-25 schema (and reading the older shapes it grew from).
//!
//! Every object keeps the fields it does not know in an `extra` map, so messages survive a
//! parse/serialize round trip unchanged. Free-form JSON (schemas, tool arguments, structured
//! content) stays as [`serde_json::Value`]. Tasks and skills are extensions'
//! ([`TASKS_EXTENSION`], [`SKILLS_EXTENSION`]).

mod capabilities;
mod common;
mod completion;
mod content;
mod elicitation;
mod form_schema;
mod lifecycle;
mod logging;
mod notifications;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod skills;
mod stateless;
mod tasks;
mod tools;

pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use form_schema::check_form_schema;
pub use lifecycle::*;
pub use logging::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use skills::*;
pub use stateless::*;
pub use tasks::*;
pub use tools::*;

#[cfg(test)]
mod tests;
