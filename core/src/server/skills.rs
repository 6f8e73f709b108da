//! Serving skills (the `io.modelcontextprotocol/skills` extension): a [`SkillBundle`] is a
//! skill's files; the server keeps each one's [`Skill`] entry (frontmatter, digests, sizes)
//! computed once at registration, serves the files through `resources/read` at
//! `skill://<skill-path>/<file-path>`, and answers `skills/list`, `skills/get` and
//! `resources/directory/read` from the same catalog, so the entry always describes the
//! bytes served.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use indexmap::IndexMap;
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::protocol::{
    is_valid_skill_name, parse_skill_frontmatter, skill_digest, ReadResourceResult, Resource, ResourceContents, Skill,
    SkillFiles, SkillResource, DIRECTORY_MIME_TYPE, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD,
};

const SCHEME: &str = "skill://";

/// A skill to serve: its path in the server's skill namespace (`git-workflow`, or
/// `acme/billing/refunds` with an organizational prefix; the last segment is the skill's
/// name) and its files by path relative to the skill's root, `SKILL.md` among them.
///
/// ```
/// use oxmcp::server::{Server, SkillBundle};
/// let skill = SkillBundle::new("git-workflow")
///     .file("SKILL.md", "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n")
///     .file("references/naming.md", "feature/<ticket>-<slug>\n");
/// let server = Server::builder("docs", "1.0.0").skill(skill).build().unwrap();
/// # let _ = server;
/// ```
#[derive(Debug, Clone)]
pub struct SkillBundle {
    path: String,
    files: BTreeMap<String, Vec<u8>>,
}

impl SkillBundle {
    /// An empty skill at `skill_path`; add its files with [`SkillBundle::file`].
    pub fn new(skill_path: impl Into<String>) -> Self {
        SkillBundle { path: skill_path.into(), files: BTreeMap::new() }
    }

    /// Adds (or replaces) the file at `path`, relative to the skill's root.
    pub fn file(mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        self.files.insert(path.into(), bytes.into());
        self
    }

    /// The skill in directory `dir` (every file under it, nested skills' included, as the
    /// extension's complete manifest asks), at `skill_path`. A symlink is served only when
    /// what it points to is a file inside `dir`: a link leaving the directory (to
    /// credentials elsewhere, say) or pointing nowhere is left out, with a warning.
    pub fn from_dir(skill_path: impl Into<String>, dir: &Path) -> Result<Self> {
        let mut bundle = SkillBundle::new(skill_path);
        let mut pending = vec![dir.to_path_buf()];
        let mut total = 0u64;
        let root = dir.canonicalize().map_err(|e| io_error(dir, e))?;
        while let Some(at) = pending.pop() {
            for entry in std::fs::read_dir(&at).map_err(|e| io_error(&at, e))? {
                let entry = entry.map_err(|e| io_error(&at, e))?;
                let path = entry.path();
                // Real directories only: a symlinked one could make a loop with no file in it.
                if entry.file_type().map_err(|e| io_error(&path, e))?.is_dir() {
                    pending.push(path);
                    continue;
                }
                // What the path resolves to must stay inside the directory.
                let Ok(resolved) = path.canonicalize() else {
                    tracing::warn!("skill file {} points nowhere: not served", path.display());
                    continue;
                };
                if !resolved.starts_with(&root) {
                    tracing::warn!("skill file {} points outside {}: not served", path.display(), dir.display());
                    continue;
                }
                // Regular files, or symlinks to them (a FIFO would block the read forever).
                let meta = std::fs::metadata(&resolved).map_err(|e| io_error(&path, e))?;
                if !meta.is_file() {
                    continue;
                }
                // The limits before the bytes: a huge file is refused unread.
                total += meta.len();
                if bundle.files.len() >= MAX_SKILL_FILES || total > MAX_SKILL_BYTES {
                    return Err(invalid(format!(
                        "{} holds more than {MAX_SKILL_FILES} files or {MAX_SKILL_BYTES} bytes",
                        dir.display()
                    )));
                }
                let relative = path.strip_prefix(dir).expect("under dir").to_string_lossy().replace('\\', "/");
                let bytes = std::fs::read(&resolved).map_err(|e| io_error(&path, e))?;
                bundle.files.insert(relative, bytes);
            }
        }
        Ok(bundle)
    }

    /// Every skill under `root`: each directory holding a `SKILL.md`, at its path relative
    /// to `root` (so `root/acme/refunds/SKILL.md` is served at `skill://acme/refunds/SKILL.md`).
    pub fn all_in_dir(root: &Path) -> Result<Vec<SkillBundle>> {
        let mut found = Vec::new();
        let mut pending = vec![root.to_path_buf()];
        while let Some(at) = pending.pop() {
            if at.join(SKILL_MD).is_file() && at != root {
                let relative = at.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
                found.push(SkillBundle::from_dir(relative, &at)?);
            }
            for entry in std::fs::read_dir(&at).map_err(|e| io_error(&at, e))? {
                let entry = entry.map_err(|e| io_error(&at, e))?;
                // Real directories only, as in from_dir: no symlink loops.
                if entry.file_type().map_err(|e| io_error(&at, e))?.is_dir() {
                    pending.push(entry.path());
                }
            }
        }
        if found.is_empty() {
            return Err(invalid(format!("no directory under {} holds a {SKILL_MD}", root.display())));
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(found)
    }
}

impl SkillBundle {
    /// Checks the bundle against the extension's rules (what [`ServerBuilder::skill`]
    /// checks), without serving it.
    ///
    /// [`ServerBuilder::skill`]: super::ServerBuilder::skill
    pub fn check(&self) -> Result<()> {
        SkillCatalog::default().add(self.clone())
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    invalid(format!("{}: {e}", path.display()))
}

fn invalid(message: String) -> Error {
    Error::new(ErrorKind::InvalidInput, message)
}

/// One served file.
struct ServedFile {
    bytes: Arc<[u8]>,
    mime_type: &'static str,
}

/// The skills a server serves, with their files and the directories they make.
#[derive(Default)]
pub(crate) struct SkillCatalog {
    /// Entries by the URI of their `SKILL.md`, in registration order.
    skills: IndexMap<String, Skill>,
    files: HashMap<String, ServedFile>,
    /// Directory URI -> its direct children by URI (files and subdirectories).
    dirs: HashMap<String, BTreeMap<String, Resource>>,
}

impl SkillCatalog {
    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Checks `bundle` against the extension's rules and adds it.
    pub(crate) fn add(&mut self, bundle: SkillBundle) -> Result<()> {
        let path = bundle.path.trim_matches('/');
        let named = |why: String| invalid(format!("skill {path:?}: {why}"));
        if path.split('/').any(|s| !is_plain_segment(s)) {
            return Err(named("the skill path needs /-separated segments without '.', '..' or URI delimiters".into()));
        }
        let skill_md = bundle.files.get(SKILL_MD).ok_or_else(|| named(format!("it has no {SKILL_MD} at its root")))?;
        let markdown = std::str::from_utf8(skill_md).map_err(|_| named(format!("{SKILL_MD} is not UTF-8")))?;
        let frontmatter = parse_skill_frontmatter(markdown).map_err(named)?;
        let name = frontmatter["name"].as_str().unwrap_or_default().to_string();
        if !is_valid_skill_name(&name) {
            return Err(named(format!("its name {name:?} breaks the naming rules (a-z, 0-9, single hyphens, 1-64 long)")));
        }
        if path.rsplit('/').next() != Some(name.as_str()) {
            return Err(named(format!("the last segment of its path must be its name {name:?}")));
        }
        let total: u64 = bundle.files.values().map(|b| b.len() as u64).sum();
        if bundle.files.len() > MAX_SKILL_FILES || total > MAX_SKILL_BYTES {
            return Err(named(format!(
                "{} files and {total} bytes exceed what every host must accept ({MAX_SKILL_FILES} files, {MAX_SKILL_BYTES} bytes)",
                bundle.files.len()
            )));
        }
        let uri = format!("{SCHEME}{path}/{SKILL_MD}");
        if self.skills.contains_key(&uri) {
            return Err(named("a skill is already served at this path".into()));
        }
        for (file, bytes) in &bundle.files {
            if file.split('/').any(|s| !is_plain_segment(s)) {
                return Err(named(format!("file {file:?} needs a relative path without '.', '..' or URI delimiters")));
            }
            let served = self.files.get(&format!("{SCHEME}{path}/{file}"));
            if served.is_some_and(|s| *s.bytes != bytes[..]) {
                return Err(named(format!("file {file:?} is already served by another skill with other content")));
            }
        }

        let mut resources = Vec::with_capacity(bundle.files.len());
        for (file, bytes) in bundle.files {
            let file_uri = format!("{SCHEME}{path}/{file}");
            resources.push(SkillResource { uri: file_uri.clone(), digest: skill_digest(&bytes), size: bytes.len() as u64 });
            let leaf = file.rsplit('/').next().unwrap_or(&file).to_string();
            let mime_type = mime_type_of(&leaf, &bytes);
            let mut resource = Resource::new(&file_uri, leaf).with_mime_type(mime_type);
            resource.size = Some(bytes.len() as u64);
            if file == SKILL_MD {
                resource.name = name.clone();
                resource.description = frontmatter.get("description").and_then(Value::as_str).map(str::to_string);
            }
            self.add_to_parent(&file_uri, resource);
            self.files.insert(file_uri, ServedFile { bytes: bytes.into(), mime_type });
        }
        self.skills.insert(uri.clone(), Skill { uri, frontmatter, resources: SkillFiles::Listed(resources) });
        Ok(())
    }

    /// Lists `child` under its parent directory, and each directory under its own parent,
    /// up to the namespace's first segment.
    fn add_to_parent(&mut self, child_uri: &str, child: Resource) {
        let Some((parent, _)) = child_uri.rsplit_once('/') else { return };
        if parent.len() <= SCHEME.len() {
            return;
        }
        let is_new = !self.dirs.contains_key(parent);
        self.dirs.entry(parent.to_string()).or_default().insert(child_uri.to_string(), child);
        if is_new {
            let leaf = parent.rsplit('/').next().unwrap_or(parent).to_string();
            let dir = Resource::new(parent, leaf).with_mime_type(DIRECTORY_MIME_TYPE);
            self.add_to_parent(parent, dir);
        }
    }

    /// Every entry, in registration order.
    pub(crate) fn entries(&self) -> impl ExactSizeIterator<Item = &Skill> {
        self.skills.values()
    }

    pub(crate) fn get(&self, uri: &str) -> Option<&Skill> {
        self.skills.get(uri)
    }

    /// The `SKILL.md` of every skill as a resource, for `resources/list`.
    pub(crate) fn manifests(&self) -> impl Iterator<Item = Resource> + '_ {
        self.skills.keys().filter_map(|uri| {
            let (parent, _) = uri.rsplit_once('/')?;
            self.dirs.get(parent)?.get(uri).cloned()
        })
    }

    /// A served file's contents, if `uri` names one.
    pub(crate) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        let file = self.files.get(uri)?;
        let contents = match std::str::from_utf8(&file.bytes) {
            Ok(text) => ResourceContents::text(uri, text),
            Err(_) => ResourceContents::blob(uri, STANDARD.encode(&file.bytes)),
        };
        Some(ReadResourceResult::new(vec![contents.with_mime_type(file.mime_type)]))
    }

    /// A directory's direct children, if `uri` names a directory. A trailing slash
    /// (`skill://acme/`) names the same directory, as it does on a filesystem.
    pub(crate) fn directory(&self, uri: &str) -> Option<Vec<Resource>> {
        let uri = uri.strip_suffix('/').unwrap_or(uri);
        self.dirs.get(uri).map(|children| children.values().cloned().collect())
    }
}

/// A path segment that stays itself inside a URI and on a filesystem.
fn is_plain_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment != "."
        && segment != ".."
        && !segment.chars().any(|c| c.is_control() || c.is_whitespace() || "?#%\\".contains(c))
}

/// The MIME type a file is served with, from its extension (text when unknown and UTF-8).
fn mime_type_of(name: &str, bytes: &[u8]) -> &'static str {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "pdf" => "application/pdf",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str = "---\nname: refunds\ndescription: Refund requests\n---\nBody\n";

    fn catalog_with(bundle: SkillBundle) -> Result<SkillCatalog> {
        let mut catalog = SkillCatalog::default();
        catalog.add(bundle)?;
        Ok(catalog)
    }

    #[test]
    fn an_entry_describes_the_bytes_served() {
        let catalog = catalog_with(
            SkillBundle::new("acme/billing/refunds")
                .file("SKILL.md", MD)
                .file("templates/email.md", "Dear customer")
                .file("bin/tool", vec![0xff, 0x00]),
        )
        .unwrap();
        let skill = catalog.get("skill://acme/billing/refunds/SKILL.md").unwrap();
        assert_eq!(skill.name(), "refunds");
        let SkillFiles::Listed(files) = &skill.resources else { panic!("listed") };
        assert_eq!(files.len(), 3);
        for f in files {
            let read = catalog.read(&f.uri).unwrap();
            let bytes = match &read.contents[0] {
                ResourceContents::Text(t) => t.text.as_bytes().to_vec(),
                ResourceContents::Blob(b) => STANDARD.decode(&b.blob).unwrap(),
            };
            assert_eq!((skill_digest(&bytes), bytes.len() as u64), (f.digest.clone(), f.size), "{}", f.uri);
        }
        assert!(catalog.read("skill://acme/billing/refunds/missing.md").is_none());
    }

    #[test]
    fn directories_list_direct_children_up_to_the_first_segment() {
        let catalog = catalog_with(SkillBundle::new("acme/refunds").file("SKILL.md", MD).file("t/a/x.md", "x")).unwrap();
        let names =
            |uri: &str| catalog.directory(uri).unwrap().into_iter().map(|r| (r.name, r.mime_type.unwrap())).collect::<Vec<_>>();
        assert_eq!(names("skill://acme"), [("refunds".into(), DIRECTORY_MIME_TYPE.into())]);
        assert_eq!(
            names("skill://acme/refunds"),
            [("refunds".to_string(), "text/markdown".to_string()), ("t".into(), DIRECTORY_MIME_TYPE.into())]
        );
        assert_eq!(names("skill://acme/refunds/t/a"), [("x.md".to_string(), "text/markdown".to_string())]);
        assert_eq!(names("skill://acme/refunds/t/a/"), names("skill://acme/refunds/t/a"), "a trailing slash names the same");
        assert_eq!(names("skill://acme/"), names("skill://acme"));
        assert!(catalog.directory("skill://acme/refunds/SKILL.md").is_none());
        assert_eq!(catalog.manifests().map(|r| r.description.unwrap()).collect::<Vec<_>>(), ["Refund requests"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_with_a_symlink_loop_and_a_fifo_is_read_without_hanging() {
        let root = std::env::temp_dir().join(format!("oxmcp-skill-loop-{}", std::process::id()));
        let skill = root.join("refunds");
        std::fs::create_dir_all(skill.join("empty")).unwrap();
        std::fs::write(skill.join("SKILL.md"), MD).unwrap();
        // A loop with no file in it, and a FIFO nobody writes: neither may hang the walk.
        std::os::unix::fs::symlink(&skill, skill.join("empty/back")).unwrap();
        let fifo = std::ffi::CString::new(skill.join("pipe").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let walked = root.clone();
        std::thread::spawn(move || {
            let _ = tx.send(SkillBundle::all_in_dir(&walked).map(|b| b.len()));
        });
        let found = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("the walk ended");
        assert_eq!(found.unwrap(), 1);
        let bundle = SkillBundle::from_dir("refunds", &skill).unwrap();
        assert_eq!(bundle.files.keys().collect::<Vec<_>>(), ["SKILL.md"]);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_leaving_the_directory_or_pointing_nowhere_are_not_served() {
        let root = std::env::temp_dir().join(format!("oxmcp-skill-links-{}", std::process::id()));
        let skill = root.join("refunds");
        std::fs::create_dir_all(skill.join("refs")).unwrap();
        std::fs::write(skill.join("SKILL.md"), MD).unwrap();
        std::fs::write(skill.join("refs/policy.md"), "30 days").unwrap();
        std::fs::write(root.join("creds.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(root.join("creds.txt"), skill.join("refs/creds.txt")).unwrap();
        std::os::unix::fs::symlink(skill.join("refs/policy.md"), skill.join("policy-link.md")).unwrap();
        std::os::unix::fs::symlink(root.join("gone"), skill.join("dangling.md")).unwrap();
        let bundle = SkillBundle::from_dir("refunds", &skill).expect("a dangling link does not stop the server");
        assert_eq!(bundle.files.keys().collect::<Vec<_>>(), ["SKILL.md", "policy-link.md", "refs/policy.md"]);
        assert_eq!(SkillBundle::all_in_dir(&root).unwrap()[0].files.len(), 3);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn bundles_breaking_the_rules_are_refused_with_the_reason() {
        let cases: [(SkillBundle, &str); 7] = [
            (SkillBundle::new("refunds").file("README.md", "x"), "no SKILL.md"),
            (SkillBundle::new("other").file("SKILL.md", MD), "must be its name"),
            (SkillBundle::new("a/../refunds").file("SKILL.md", MD), "segments"),
            (SkillBundle::new("refunds").file("SKILL.md", MD).file("../etc/passwd", "x"), "relative path"),
            (SkillBundle::new("refunds").file("SKILL.md", "# none"), "frontmatter"),
            (SkillBundle::new("Refunds").file("SKILL.md", MD.replace("refunds", "Refunds")), "naming rules"),
            (SkillBundle::new("refunds").file("SKILL.md", MD).file("big", vec![0u8; MAX_SKILL_BYTES as usize]), "exceed"),
        ];
        for (bundle, why) in cases {
            let e = catalog_with(bundle).err().expect("refused");
            assert!(e.message().contains(why), "{why}: {}", e.message());
        }
        let mut catalog = catalog_with(SkillBundle::new("refunds").file("SKILL.md", MD)).unwrap();
        assert!(catalog.add(SkillBundle::new("refunds").file("SKILL.md", MD)).unwrap_err().message().contains("already served"));
    }
}
