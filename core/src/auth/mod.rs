//! Authorization building blocks (OAuth 2.1 as the MCP authorization specification uses
//! it): reading a 401's challenge, where metadata lives, PKCE, and the checks a client
//! makes on what it discovers. No network here: the flows that use them build on top.

pub mod challenge;
pub mod discovery;
pub mod metadata;
pub mod pkce;

pub use challenge::{BearerChallenge, Challenge};
pub use discovery::{authorization_server_metadata_urls, canonical_resource, protected_resource_metadata_urls, resource_allowed};
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
pub use pkce::Pkce;
