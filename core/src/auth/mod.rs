//! Authorization (OAuth 2.1 as the MCP authorization specification uses it): reading a
//! 401's challenge, where metadata lives, PKCE and the checks a client makes on what it
//! discovers (no network in those), and the client that puts them together over HTTP.

pub mod challenge;
#[cfg(feature = "http")]
pub mod client;
#[cfg(feature = "http")]
pub mod discovery;
#[cfg(feature = "http")]
pub mod metadata;
pub mod pkce;
#[cfg(feature = "http")]
pub mod resource;
pub mod store;
pub mod subject;

pub use challenge::{BearerChallenge, Challenge};
#[cfg(feature = "http")]
pub use client::{
    headless_agent, Authorization, AuthorizationRequest, Grant, Loopback, OAuth, OAuthOptions, Refusal, Retry, UserAgent,
};
#[cfg(feature = "http")]
pub use discovery::{authorization_server_metadata_urls, canonical_resource, protected_resource_metadata_urls, resource_allowed};
#[cfg(feature = "http")]
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
pub use pkce::Pkce;
#[cfg(feature = "http")]
pub use resource::{Denial, Introspection, JwtVerifier, Presented, ProtectedResource, TokenVerifier, VerifyFn};
pub use store::{ClientRegistration, CredentialStore, Credentials, FileStore, MemoryStore, Tokens};
pub use subject::{AuthInfo, SessionAuth};
