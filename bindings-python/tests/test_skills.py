"""Skills (the skills extension) from Python: a server serves skills given as texts or
found in a directory; a client lists them without fetching files, loads one (SKILL.md
checked against its entry), reads its files and directories, and refuses what the entry
does not list or what does not match it."""

import hashlib
from pathlib import Path

import pytest
from conftest import run

from oxmcp import CapabilityMissing, Client, InvalidInput, McpError, ProtocolError, Resource, Server, Skill

PDF_MD = "---\nname: pdf-processing\ndescription: Work with PDFs\nlicense: MIT\n---\n# PDF\nSee references/FORMS.md.\n"
FORMS = "# Forms\nFill every field.\n"


def skills_server(root: Path) -> Server:
    server = Server("skills")
    server.skill("pdf-processing", {"SKILL.md": PDF_MD, "references/FORMS.md": FORMS})
    refunds = root / "acme" / "refunds"
    refunds.mkdir(parents=True)
    (refunds / "SKILL.md").write_text("---\nname: refunds\ndescription: Refund requests\n---\nBe kind.\n")
    (refunds / "assets").mkdir()
    (refunds / "assets" / "logo.bin").write_bytes(bytes([0, 159, 146, 150]))
    server.skills_dir(root)
    return server


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_skills_are_listed_loaded_and_read(era, tmp_path):
    async def main() -> None:
        server = skills_server(tmp_path)
        url = await server.start_http("127.0.0.1", 0)
        try:
            async with Client.http(url, era=era) as client:
                skills = await client.list_skills()
                assert [s.uri for s in skills] == ["skill://pdf-processing/SKILL.md", "skill://acme/refunds/SKILL.md"]
                pdf = skills[0]
                assert (pdf.name, pdf.description, pdf.frontmatter["license"]) == ("pdf-processing", "Work with PDFs", "MIT")
                assert not isinstance(pdf.resources, str)
                assert {f.uri: (f.size, f.digest) for f in pdf.resources}["skill://pdf-processing/references/FORMS.md"] == \
                    (len(FORMS), "sha256:" + hashlib.sha256(FORMS.encode()).hexdigest())
                assert await client.get_skill(pdf.uri) == pdf

                loaded = await client.load_skill(pdf)
                assert loaded.markdown == PDF_MD and loaded.skill == pdf
                assert (await client.load_skill("skill://acme/refunds/SKILL.md")).skill.name == "refunds"
                assert await client.read_skill_file(pdf, "references/FORMS.md") == FORMS.encode()
                refunds = skills[1]
                assert await client.read_skill_file(refunds, "assets/logo.bin") == bytes([0, 159, 146, 150])

                children = await client.read_directory("skill://acme/refunds")
                assert all(isinstance(c, Resource) for c in children)
                assert {(c.name, c.mime_type) for c in children} == {("refunds", "text/markdown"),
                                                                    ("assets", "inode/directory")}
                with pytest.raises(McpError) as e:
                    await client.read_directory("skill://acme/refunds/SKILL.md")
                assert e.value.code == -32602
                with pytest.raises(McpError) as e:
                    await client.get_skill("skill://nothing/SKILL.md")
                assert e.value.code == -32602
                with pytest.raises(ProtocolError, match="does not list it"):
                    await client.read_skill_file(pdf, "references/OTHER.md")
                # An entry that does not match what the server serves: refused, not returned.
                stale = pdf.model_copy(update={"frontmatter": {**pdf.frontmatter, "description": "Exfiltrate"}})
                with pytest.raises(ProtocolError, match="frontmatter differs"):
                    await client.load_skill(stale)
                assert isinstance(stale, Skill)
        finally:
            await server.stop_http()
    run(main())


def test_a_skill_breaking_the_rules_is_refused_when_added(tmp_path):
    server = Server("skills")
    with pytest.raises(InvalidInput, match="must be its name"):
        server.skill("other-name", {"SKILL.md": PDF_MD})
    with pytest.raises(InvalidInput, match="frontmatter"):
        server.skill("pdf-processing", {"SKILL.md": "# no frontmatter"})
    with pytest.raises(InvalidInput, match="no directory under"):
        server.skills_dir(tmp_path)


def test_a_server_without_skills_says_so():
    async def main() -> None:
        server = Server("plain")

        @server.tool()
        def hello() -> str:
            return "hi"
        url = await server.start_http("127.0.0.1", 0)
        try:
            async with Client.http(url) as client:
                with pytest.raises(CapabilityMissing):
                    await client.list_skills()
        finally:
            await server.stop_http()
    run(main())
