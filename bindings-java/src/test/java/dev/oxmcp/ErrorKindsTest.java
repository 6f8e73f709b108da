package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link McpException.Kind} maps the engine's error kinds by their stable numbers and names. */
class ErrorKindsTest {
    @Test
    void everyEngineKindHasItsJavaKindByNumberAndName() {
        String[] lines = Native.errorKinds().strip().split("\n");
        Set<McpException.Kind> seen = new HashSet<>();
        for (String line : lines) {
            String[] parts = line.split(" ");
            int code = Integer.parseInt(parts[0]);
            McpException.Kind kind = McpException.Kind.fromCode(code);
            assertEquals(code, kind.code(), "engine kind " + line + " has a Java kind");
            assertEquals(parts[1], kind.wireName(), "engine kind " + line);
            seen.add(kind);
        }
        assertEquals(McpException.Kind.values().length, seen.size(), "no Java kind without an engine kind");
        assertEquals(lines.length, seen.size());
    }
}
