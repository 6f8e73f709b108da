//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server serves
//! Agent Skills (a directory with a `SKILL.md` at its root) as ordinary resources,
//! conventionally at `skill://<skill-path>/<file-path>`, and describes each with a
//! [`Skill`] entry: the `SKILL.md` frontmatter verbatim and every file's digest and size,
//! so a host can verify what it reads before it acts on it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::Resource;

/// The extension's identifier, under the server's `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The file at the root of every skill.
pub const SKILL_MD: &str = "SKILL.md";
/// The MIME type of a directory resource (`resources/directory/read`).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// The resources a host must accept in one skill (`SKILL.md` included).
pub const MAX_SKILL_FILES: usize = 512;
/// The total size of one skill's files a host must accept, in bytes (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// One file of a skill, with the digest and size of its raw bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of the raw bytes.
    pub digest: String,
    /// The raw bytes' length.
    pub size: u64,
}

/// A skill's files: complete, or `"dynamic"` when the content is generated and has no
/// stable digests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillFiles {
    /// Every file of the skill, each once, `SKILL.md` included.
    Listed(Vec<SkillResource>),
    /// Generated content: nothing to verify against.
    Dynamic(DynamicMarker),
}

/// The string `"dynamic"`, the only other form [`SkillFiles`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DynamicMarker {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// The entry for one skill, the same in `skills/list` and `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` YAML frontmatter as a JSON object; `name` and `description` always.
    pub frontmatter: Map<String, Value>,
    /// The skill's files.
    pub resources: SkillFiles,
}

impl Skill {
    /// The skill's name (its frontmatter `name`).
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// The skill's description (its frontmatter `description`).
    pub fn description(&self) -> &str {
        self.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default()
    }

    /// The listed file at `uri`, if the entry lists it.
    pub fn file(&self, uri: &str) -> Option<&SkillResource> {
        match &self.resources {
            SkillFiles::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillFiles::Dynamic(_) => None,
        }
    }

    /// The skill's root directory: the `SKILL.md` URI without `/SKILL.md`.
    pub fn root(&self) -> &str {
        self.uri.strip_suffix(&format!("/{SKILL_MD}")).unwrap_or(&self.uri)
    }
}

/// `skills/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// One page of entries.
    pub skills: Vec<Skill>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Fields this version of oxmcp does not know (`ttlMs`, `cacheScope`...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `skills/get` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

/// `skills/get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: Skill,
    /// Fields this version of oxmcp does not know (`ttlMs`, `cacheScope`...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `resources/directory/read` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryParams {
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// Where to go on, from a previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `resources/directory/read` result: the directory's direct children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDirectoryResult {
    /// Files with their resource metadata; subdirectories with [`DIRECTORY_MIME_TYPE`].
    pub resources: Vec<Resource>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Fields this version of oxmcp does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The digest the extension writes for `bytes`: `sha256:` and 64 lowercase hex digits.
pub fn skill_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The YAML frontmatter at the start of a `SKILL.md` (between `---` lines), as JSON.
///
/// Fails when there is no frontmatter block, when it is not a YAML mapping, or when
/// `name` or `description` is missing or not a non-empty string.
///
/// ```
/// let md = "---\nname: pdf-processing\ndescription: Work with PDFs\nlicense: MIT\n---\n# Body\n";
/// let fm = oxmcp::protocol::parse_skill_frontmatter(md).unwrap();
/// assert_eq!(fm["name"], "pdf-processing");
/// assert_eq!(fm["license"], "MIT");
/// assert!(oxmcp::protocol::parse_skill_frontmatter("# no frontmatter").is_err());
/// ```
pub fn parse_skill_frontmatter(markdown: &str) -> Result<Map<String, Value>, String> {
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("SKILL.md does not begin with a --- frontmatter block".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("SKILL.md's frontmatter block is not closed by ---".into());
    }
    let value: Value = serde_yaml_ng::from_str(&yaml).map_err(|e| format!("SKILL.md's frontmatter is not valid YAML: {e}"))?;
    let Value::Object(fields) = value else {
        return Err("SKILL.md's frontmatter is not a mapping".into());
    };
    for key in ["name", "description"] {
        if fields.get(key).and_then(Value::as_str).is_none_or(|s| s.is_empty()) {
            return Err(format!("SKILL.md's frontmatter has no non-empty {key}"));
        }
    }
    Ok(fields)
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64 characters, lowercase
/// letters, digits and hyphens, no hyphen first, last or twice in a row.
pub fn is_valid_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_are_listed_or_dynamic_and_nothing_else() {
        let listed: SkillFiles =
            serde_json::from_value(json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 1}])).unwrap();
        assert!(matches!(listed, SkillFiles::Listed(ref f) if f.len() == 1));
        let dynamic: SkillFiles = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        assert!(serde_json::from_value::<SkillFiles>(json!("static")).is_err());
        assert!(serde_json::from_value::<Skill>(json!({"uri": "skill://a/SKILL.md", "frontmatter": {}})).is_err());
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        let d = skill_digest(b"abc");
        assert_eq!(d, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn frontmatter_needs_a_closed_block_with_name_and_description() {
        assert!(parse_skill_frontmatter("---\nname: a\n---\n").unwrap_err().contains("description"));
        assert!(parse_skill_frontmatter("---\nname: a\ndescription: b\n").unwrap_err().contains("not closed"));
        assert!(parse_skill_frontmatter("---\n- a\n---\n").unwrap_err().contains("mapping"));
        let fm = parse_skill_frontmatter("\u{feff}---\r\nname: a\r\ndescription: b\r\nmetadata:\r\n  v: 2\r\n---\r\n").unwrap();
        assert_eq!(Value::Object(fm), json!({"name": "a", "description": "b", "metadata": {"v": 2}}));
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "v2", &"x".repeat(64)] {
            assert!(is_valid_skill_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "PDF", "a_b", "a.b", &"x".repeat(65)] {
            assert!(!is_valid_skill_name(bad), "{bad}");
        }
    }
}
