package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpOptions}: the Host and Origin values a listener accepts. Local ones only by
 * default (403 for a request under another host name); the ones named, when named.
 */
class HttpOptionsTest {
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

    /** The status line's code of a raw POST with these Host and Origin headers (Origin may be null). */
    private static int status(String url, String host, String origin) throws Exception {
        URI u = URI.create(url);
        try (Socket s = new Socket(u.getHost(), u.getPort())) {
            s.setSoTimeout(10_000);
            byte[] body = INIT.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + u.getPath() + " HTTP/1.1\r\nHost: " + host + "\r\n"
                    + (origin != null ? "Origin: " + origin + "\r\n" : "")
                    + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) != -1 && c != '\n'; ) line.append((char) c);
            return Integer.parseInt(line.toString().split(" ")[1]);
        }
    }

    @Test
    void onlyLocalHostsByDefaultAndTheNamedOnesWhenNamed() throws Exception {
        try (McpServer local = new McpServer("local", "1");
                McpServer named = new McpServer("named", "1")) {
            String localUrl = local.startHttp(HttpOptions.bind("127.0.0.1", 0)).get(30, TimeUnit.SECONDS);
            assertEquals(403, status(localUrl, "mcp.example.com", null));
            String namedUrl = named.startHttp(HttpOptions.bind("127.0.0.1", 0)
                            .allowedHosts("mcp.example.com").allowedOrigins("https://app.example.com"))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(200, status(namedUrl, "mcp.example.com", null));
            assertEquals(200, status(namedUrl, "mcp.example.com", "https://app.example.com"));
            assertEquals(403, status(namedUrl, "mcp.example.com", "https://evil.example.com"));
            assertEquals(403, status(namedUrl, "other.example.com", null));
        }
    }
}
