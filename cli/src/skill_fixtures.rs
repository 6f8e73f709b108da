//! The everything server's skills (the `io.modelcontextprotocol/skills` extension): one
//! skill with supporting files in nested directories, and one under an organizational
//! prefix, so listing, manifests and directory reads all have something to show.

use oxmcp::server::{ServerBuilder, SkillBundle};

/// Adds the skills.
pub fn add(b: ServerBuilder) -> ServerBuilder {
    b.skill(
        SkillBundle::new("pdf-processing")
            .file(
                "SKILL.md",
                "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: Apache-2.0\nmetadata:\n  version: \"1.0\"\n---\n\n# PDF processing\n\nRead `references/FORMS.md` before filling a form, and pick a template from `templates/`.\n",
            )
            .file("references/FORMS.md", "# Forms\n\nFill every required field; leave the others empty.\n")
            .file("templates/invoice.md", "# Invoice\n\nNumber: {number}\nTotal: {total}\n")
            .file("templates/regional/eu-invoice.md", "# EU invoice\n\nVAT number: {vat}\n"),
    )
    .skill(SkillBundle::new("acme/billing/refunds").file(
        "SKILL.md",
        "---\nname: refunds\ndescription: Process customer refund requests per company policy\n---\n\nRefund within 30 days of purchase; escalate anything older.\n",
    ))
}
