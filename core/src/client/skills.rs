//! Skills a server serves (the `io.modelcontextprotocol/skills` extension), read the way
//! the extension asks a host to: [`Client::list_skills`] and [`Client::get_skill`] give a
//! skill's entry without fetching any file; [`Client::load_skill`] fetches its `SKILL.md`
//! only when asked and checks it against the entry (size, digest, frontmatter), and
//! [`Client::read_skill_file`] reads a supporting file the entry lists, checked the same
//! way. Content that fails a check is never returned.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> oxmcp::Result<()> {
//! use oxmcp::client::Client;
//! use oxmcp::server::{Server, SkillBundle};
//! use oxmcp::transport::MemoryTransport;
//!
//! let md = "---\nname: git-workflow\ndescription: Our Git rules\n---\nSee references/naming.md.\n";
//! let skill = SkillBundle::new("git-workflow").file("SKILL.md", md).file("references/naming.md", "feature/<slug>\n");
//! let server = Server::builder("docs", "1.0.0").skill(skill).build()?;
//! let (server_end, client_end) = MemoryTransport::pair();
//! let _session = server.serve(server_end);
//! let client = Client::builder("me", "1.0.0").connect(client_end).await?;
//!
//! let skills = client.list_all_skills().await?; // entries only: nothing fetched yet
//! assert_eq!(skills[0].name(), "git-workflow");
//! let loaded = client.load_skill(&skills[0]).await?; // SKILL.md, checked against the entry
//! assert_eq!(loaded.markdown, md);
//! let naming = client.read_skill_file(&loaded.skill, "references/naming.md").await?;
//! assert_eq!(naming, b"feature/<slug>\n");
//! assert!(client.read_skill_file(&loaded.skill, "secrets.md").await.is_err(), "not in the entry");
//! # Ok(()) }
//! ```

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};

use super::{cursor_params, Client};
use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    methods, parse_skill_frontmatter, skill_digest, GetSkillResult, ListSkillsResult, ReadDirectoryResult, ResourceContents,
    Skill, SkillFiles, SKILLS_EXTENSION,
};
use crate::session::RequestOptions;

/// A skill whose `SKILL.md` was fetched and matched its entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    /// The entry it was checked against (the one to keep while acting on the skill).
    pub skill: Skill,
    /// The `SKILL.md` text, frontmatter included.
    pub markdown: String,
}

fn verification_failed(uri: &str, why: String) -> Error {
    Error::new(ErrorKind::Protocol, format!("skill file {uri} failed verification: {why}"))
}

impl Client {
    fn require_skills(&self) -> Result<()> {
        let declared = self.server_capabilities().extensions.as_ref().is_some_and(|e| e.contains_key(SKILLS_EXTENSION));
        if declared {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::CapabilityMissing, format!("the server did not declare the extension {SKILLS_EXTENSION}")))
        }
    }

    /// One page of `skills/list`: entries only, no file is fetched.
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult> {
        self.require_skills()?;
        self.typed(methods::SKILLS_LIST, &cursor_params(cursor), RequestOptions::default()).await
    }

    /// Every skill the server lists, following `nextCursor`. A listing may be partial:
    /// [`Client::get_skill`] reaches a skill known only by its URI.
    pub async fn list_all_skills(&self) -> Result<Vec<Skill>> {
        self.all_pages(|c| async move { self.list_skills(c.as_deref()).await.map(|r| (r.skills, r.next_cursor)) }).await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (-32602 if the server serves none).
    pub async fn get_skill(&self, uri: &str) -> Result<Skill> {
        self.require_skills()?;
        let result: GetSkillResult = self.typed(methods::SKILLS_GET, &json!({ "uri": uri }), RequestOptions::default()).await?;
        if result.skill.uri != uri {
            return Err(Error::new(ErrorKind::Protocol, format!("skills/get for {uri} answered for {}", result.skill.uri)));
        }
        Ok(result.skill)
    }

    /// One page of the direct children of a directory resource (`resources/directory/read`,
    /// when the server declared `directoryRead`).
    pub async fn read_directory(&self, uri: &str, cursor: Option<&str>) -> Result<ReadDirectoryResult> {
        self.require_skills()?;
        let declared = self
            .server_capabilities()
            .extensions
            .as_ref()
            .and_then(|e| e.get(SKILLS_EXTENSION))
            .and_then(|s| s.get("directoryRead"));
        if declared != Some(&Value::Bool(true)) {
            return Err(Error::new(ErrorKind::CapabilityMissing, "the server did not declare directoryRead for skills"));
        }
        let params = match cursor {
            Some(c) => json!({ "uri": uri, "cursor": c }),
            None => json!({ "uri": uri }),
        };
        self.typed(methods::RESOURCES_DIRECTORY_READ, &params, RequestOptions::default()).await
    }

    /// Every child of a directory resource, following `nextCursor` (a server repeating a
    /// cursor is a protocol error, not an endless walk).
    pub async fn read_all_directory(&self, uri: &str) -> Result<Vec<crate::protocol::Resource>> {
        self.all_pages(|c| async move { self.read_directory(uri, c.as_deref()).await.map(|r| (r.resources, r.next_cursor)) })
            .await
    }

    /// Fetches the skill's `SKILL.md` and checks it against `skill`: its size and digest
    /// (unless the entry is `"dynamic"`) and its frontmatter, field by field. Any mismatch
    /// is a [`ErrorKind::Protocol`] error and the content is not returned; refresh the
    /// entry with [`Client::get_skill`] to recover from a stale one.
    pub async fn load_skill(&self, skill: &Skill) -> Result<LoadedSkill> {
        let bytes = self.read_skill_file(skill, &skill.uri).await?;
        let markdown = String::from_utf8(bytes).map_err(|_| verification_failed(&skill.uri, "it is not UTF-8".into()))?;
        let frontmatter = parse_skill_frontmatter(&markdown).map_err(|why| verification_failed(&skill.uri, why))?;
        if frontmatter != skill.frontmatter {
            let differing: Vec<&String> = frontmatter
                .keys()
                .chain(skill.frontmatter.keys())
                .filter(|k| frontmatter.get(*k) != skill.frontmatter.get(*k))
                .collect();
            return Err(verification_failed(&skill.uri, format!("its frontmatter differs from the entry's in {differing:?}")));
        }
        Ok(LoadedSkill { skill: skill.clone(), markdown })
    }

    /// Reads a file of `skill`: `path` is a URI, or a path relative to the skill's root
    /// (`references/FORMS.md`). A file the entry does not list is refused without a
    /// request; a listed one must match its size and digest.
    pub async fn read_skill_file(&self, skill: &Skill, path: &str) -> Result<Vec<u8>> {
        let uri =
            if path.contains("://") { path.to_string() } else { format!("{}/{}", skill.root(), path.trim_start_matches('/')) };
        let listed = match &skill.resources {
            SkillFiles::Listed(_) => {
                Some(skill.file(&uri).ok_or_else(|| verification_failed(&uri, "the skill's entry does not list it".into()))?)
            }
            SkillFiles::Dynamic(_) if uri.starts_with(&format!("{}/", skill.root())) => None,
            SkillFiles::Dynamic(_) => return Err(verification_failed(&uri, "it is outside the skill's directory".into())),
        };
        let result = self.read_resource(&uri).await?;
        let contents = result
            .contents
            .into_iter()
            .find(|c| c.uri() == uri)
            .ok_or_else(|| verification_failed(&uri, "the read returned no contents for it".into()))?;
        let bytes = match contents {
            ResourceContents::Text(t) => t.text.into_bytes(),
            ResourceContents::Blob(b) => {
                STANDARD.decode(b.blob).map_err(|_| verification_failed(&uri, "its blob is not base64".into()))?
            }
        };
        if let Some(file) = listed {
            // The size first: a mismatch is a failure whether or not the digest is computed.
            if bytes.len() as u64 != file.size {
                return Err(verification_failed(&uri, format!("{} bytes where the entry says {}", bytes.len(), file.size)));
            }
            if skill_digest(&bytes) != file.digest {
                return Err(verification_failed(&uri, "its digest differs from the entry's".into()));
            }
        }
        Ok(bytes)
    }
}
