package dev.oxmcp;

import java.util.Map;

/**
 * A skill loaded by {@link McpClient#loadSkill(String, String)}: its entry and its
 * {@code SKILL.md}, checked against each other by the engine (size, digest, frontmatter).
 *
 * @param skillJson the skill's entry (JSON: {@code uri}, {@code frontmatter}, {@code resources}),
 *     for {@link McpClient#readSkillFile(String, String)}
 * @param markdown the text of its {@code SKILL.md}, frontmatter included
 */
public record LoadedSkill(String skillJson, String markdown) {

    /** Reads the engine's {@code {"skill": entry, "markdown": text}}. */
    static LoadedSkill parse(String json) {
        Map<String, String> m = Json.members(json);
        return new LoadedSkill(m.get("skill"), Json.unquote(m.get("markdown")));
    }
}
