package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Resource reads arrive as {@code {"uri", "variables"}}: {@link Json#members} takes them apart exactly. */
class JsonTest {
    @Test
    void resourceInputSplitsIntoUriAndRawVariables() {
        String input = "{ \"uri\" : \"test://a\\\"b\\\\c\\u00e9/{x}\", \"variables\":{\"id\":\"7,}\",\"n\":[1,{\"k\":\"]\"}]},\"z\":-1.5e3 }";
        Map<String, String> m = Json.members(input);
        assertEquals("test://a\"b\\c\u00e9/{x}", Json.unquote(m.get("uri")));
        assertEquals("{\"id\":\"7,}\",\"n\":[1,{\"k\":\"]\"}]}", m.get("variables"));
        assertEquals("-1.5e3", m.get("z"));
        assertEquals(Map.of(), Json.members("{}"));
        assertNull(Json.unquote(null));
    }
}
