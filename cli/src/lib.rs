//! The `oxmcp` command-line tool's library half: the everything server, so tests and
//! benchmarks can run it in-process too.

pub mod arguments;
pub mod bind;
pub mod conformance;
pub mod connect;
pub mod elicit;
pub mod everything;
mod input_required_fixtures;
pub mod media;
pub mod oauth;
pub mod proxy;
mod proxy_shared;
pub mod show;
mod skill_fixtures;
pub mod target;
mod task_fixtures;
