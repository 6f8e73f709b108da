//! Skills (the `io.modelcontextprotocol/skills` extension) over HTTP in both eras: a
//! server serving a directory of skills lists and describes them, serves their files and
//! directories; a client loads a skill only when asked and refuses content that does not
//! match the skill's entry.

use std::path::PathBuf;

use oxmcp::client::{Client, Era};
use oxmcp::protocol::{
    skill_digest, ReadResourceResult, Resource, ResourceContents, SkillFiles, DIRECTORY_MIME_TYPE, SKILLS_EXTENSION,
};
use oxmcp::server::{RequestContext, ResourceRequest, Server, ServerConfig, SkillBundle};
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use oxmcp::ErrorKind;
use serde_json::{json, Value};

const PDF_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1\"\n---\n# PDF processing\nSee references/FORMS.md.\n";
const FORMS_MD: &str = "# Forms\nFill every field.\n";

/// A skills tree on disk: `pdf-processing` (SKILL.md, references/FORMS.md, a binary
/// asset) and `acme/billing/refunds` (SKILL.md only).
fn skills_tree() -> PathBuf {
    let root = std::env::temp_dir().join(format!("oxmcp-skills-{}-{}", std::process::id(), rand_suffix()));
    let pdf = root.join("pdf-processing");
    std::fs::create_dir_all(pdf.join("references")).unwrap();
    std::fs::create_dir_all(pdf.join("assets")).unwrap();
    std::fs::write(pdf.join("SKILL.md"), PDF_MD).unwrap();
    std::fs::write(pdf.join("references/FORMS.md"), FORMS_MD).unwrap();
    std::fs::write(pdf.join("assets/logo.bin"), [0u8, 159, 146, 150]).unwrap();
    let refunds = root.join("acme/billing/refunds");
    std::fs::create_dir_all(&refunds).unwrap();
    std::fs::write(refunds.join("SKILL.md"), "---\nname: refunds\ndescription: Refund requests per policy\n---\nBe kind.\n")
        .unwrap();
    root
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

async fn connect(http: &HttpServer, era: Era) -> Client {
    Client::builder("c", "1").era(era).connect(HttpClientTransport::new(http.url())).await.unwrap()
}

#[tokio::test]
async fn a_served_directory_of_skills_is_listed_described_and_read_in_both_eras() {
    let root = skills_tree();
    let server = Server::builder("skills", "1")
        .config(ServerConfig { page_size: 1, ..Default::default() })
        .skills_dir(&root)
        .build()
        .unwrap();
    let http = HttpServer::bind(server, HttpServerConfig::default()).await.unwrap();
    for era in [Era::Session, Era::Stateless] {
        let client = connect(&http, era).await;
        let declared = client.server_capabilities().extensions.clone().unwrap_or_default();
        assert_eq!(declared.get(SKILLS_EXTENSION), Some(&json!({"directoryRead": true})), "{era:?}");
        assert!(client.server_capabilities().resources.is_some(), "skill files are resources");

        // One per page (page_size 1): the listing follows nextCursor, entries whole.
        let skills = client.list_all_skills().await.unwrap();
        let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
        assert_eq!(uris, ["skill://acme/billing/refunds/SKILL.md", "skill://pdf-processing/SKILL.md"], "{era:?}");
        let pdf = &skills[1];
        assert_eq!(Value::Object(pdf.frontmatter.clone())["metadata"], json!({"version": "2.1"}));
        let SkillFiles::Listed(files) = &pdf.resources else { panic!("listed") };
        let listed: Vec<(&str, u64)> = files.iter().map(|f| (f.uri.as_str(), f.size)).collect();
        assert_eq!(
            listed,
            [
                ("skill://pdf-processing/SKILL.md", PDF_MD.len() as u64),
                ("skill://pdf-processing/assets/logo.bin", 4),
                ("skill://pdf-processing/references/FORMS.md", FORMS_MD.len() as u64)
            ]
        );
        assert_eq!(files[0].digest, skill_digest(PDF_MD.as_bytes()));

        assert_eq!(&client.get_skill(&pdf.uri).await.unwrap(), pdf);
        let unknown = client.get_skill("skill://nope/SKILL.md").await.unwrap_err();
        assert_eq!(unknown.code(), Some(-32602), "{unknown}");

        // Loading verifies; files read by relative path or URI, binary ones as bytes.
        let loaded = client.load_skill(pdf).await.unwrap();
        assert_eq!(loaded.markdown, PDF_MD);
        assert_eq!(client.read_skill_file(pdf, "references/FORMS.md").await.unwrap(), FORMS_MD.as_bytes());
        assert_eq!(client.read_skill_file(pdf, "skill://pdf-processing/assets/logo.bin").await.unwrap(), [0u8, 159, 146, 150]);

        // Directories: direct children, subdirectories marked; a file is not one.
        // (One child per page: the cursor walks them.)
        let mut children: Vec<(String, Option<String>)> = Vec::new();
        let mut cursor = None;
        loop {
            let page = client.read_directory("skill://pdf-processing", cursor.as_deref()).await.unwrap();
            children.extend(page.resources.iter().map(|r| (r.name.clone(), r.mime_type.clone())));
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(children.len(), 3, "{children:?}");
        let all = client.read_all_directory("skill://pdf-processing").await.unwrap();
        assert_eq!(all.iter().map(|r| (r.name.clone(), r.mime_type.clone())).collect::<Vec<_>>(), children);
        assert!(children.contains(&("references".into(), Some(DIRECTORY_MIME_TYPE.into()))), "{children:?}");
        let mut page = client.read_directory("skill://acme", None).await.unwrap();
        assert_eq!(page.resources[0].uri, "skill://acme/billing");
        assert!(page.next_cursor.is_none());
        page = client.read_directory("skill://acme/billing/refunds", None).await.unwrap();
        assert_eq!(page.resources[0].description.as_deref(), Some("Refund requests per policy"));
        let not_dir = client.read_directory("skill://pdf-processing/SKILL.md", None).await.unwrap_err();
        assert_eq!(not_dir.code(), Some(-32602), "{not_dir}");

        // resources/list names each SKILL.md as the skill, for clients without the extension.
        let resources = client.list_all_resources().await.unwrap();
        let manifest = resources.iter().find(|r| r.uri == pdf.uri).expect("listed");
        assert_eq!((manifest.name.as_str(), manifest.mime_type.as_deref()), ("pdf-processing", Some("text/markdown")));
        assert_eq!(resources.len(), 2, "supporting files are not listed: {resources:?}");

        // The resources capability says subscribe: a server of skills alone takes it.
        assert_eq!(client.server_capabilities().resources.as_ref().and_then(|r| r.subscribe), Some(true));
        client.subscribe(&pdf.uri).await.unwrap_or_else(|e| panic!("{era:?}: subscribe: {e}"));
        client.unsubscribe(&pdf.uri).await.unwrap();
        client.close().await;
    }
    http.shutdown().await;
    std::fs::remove_dir_all(root).unwrap();
}

/// A server whose resource at the skill's SKILL.md URI (registered resources come first,
/// as a rewriting gateway would) serves other bytes than the entry describes.
async fn tampered(body: &'static str) -> HttpServer {
    let skill = SkillBundle::new("pdf-processing").file("SKILL.md", PDF_MD).file("references/FORMS.md", FORMS_MD);
    let server = Server::builder("tampered", "1")
        .skill(skill)
        .resource(
            Resource::new("skill://pdf-processing/SKILL.md", "pdf-processing"),
            move |r: ResourceRequest, _c: RequestContext| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, body)]))
            },
        )
        .build()
        .unwrap();
    HttpServer::bind(server, HttpServerConfig::default()).await.unwrap()
}

#[tokio::test]
async fn content_that_does_not_match_its_entry_is_refused() {
    let same_length_other_bytes = PDF_MD.replace("# PDF processing", "# PDF exfiltrate");
    let cases = [
        (same_length_other_bytes.leak() as &'static str, "digest"),
        (format!("{PDF_MD}extra bytes\n").leak() as &'static str, "bytes where the entry says"),
    ];
    for (body, why) in cases {
        let http = tampered(body).await;
        for era in [Era::Session, Era::Stateless] {
            let client = connect(&http, era).await;
            let skill = client.get_skill("skill://pdf-processing/SKILL.md").await.unwrap();
            let e = client.load_skill(&skill).await.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Protocol, "{e}");
            assert!(e.message().contains(why), "{why}: {e}");
            client.close().await;
        }
        http.shutdown().await;
    }
}

#[tokio::test]
async fn a_skill_md_whose_frontmatter_differs_from_the_entry_is_not_loaded() {
    let http = tampered(PDF_MD).await;
    let client = connect(&http, Era::Stateless).await;
    let mut skill = client.get_skill("skill://pdf-processing/SKILL.md").await.unwrap();
    // The entry a gateway rewrote along with the bytes: digest and size match, the
    // frontmatter does not.
    let SkillFiles::Listed(files) = &mut skill.resources else { panic!() };
    files[0].digest = skill_digest(PDF_MD.as_bytes());
    skill.frontmatter.insert("description".into(), json!("Exfiltrate credentials"));
    let e = client.load_skill(&skill).await.unwrap_err();
    assert!(e.message().contains("frontmatter differs") && e.message().contains("description"), "{e}");
    client.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn files_the_entry_does_not_list_are_refused_and_servers_without_skills_say_so() {
    let plain = Server::builder("plain", "1").build().unwrap();
    let plain = HttpServer::bind(plain, HttpServerConfig::default()).await.unwrap();
    let client = connect(&plain, Era::Stateless).await;
    assert_eq!(client.list_skills(None).await.unwrap_err().kind(), ErrorKind::CapabilityMissing);
    client.close().await;
    plain.shutdown().await;

    let server =
        Server::builder("skills", "1").skill(SkillBundle::new("pdf-processing").file("SKILL.md", PDF_MD)).build().unwrap();
    let http = HttpServer::bind(server, HttpServerConfig::default()).await.unwrap();
    let client = connect(&http, Era::Session).await;
    let skill = client.get_skill("skill://pdf-processing/SKILL.md").await.unwrap();
    for path in ["references/FORMS.md", "../other/SKILL.md", "skill://other/SKILL.md"] {
        let e = client.read_skill_file(&skill, path).await.unwrap_err();
        assert!(e.message().contains("does not list it"), "{path}: {e}");
    }
    client.close().await;
    http.shutdown().await;
}
