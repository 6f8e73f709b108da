package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

/**
 * The Spring Boot auto-configuration (dev.oxmcp.spring) in a real Spring Boot web application
 * on embedded Tomcat: the endpoint mounted by {@code McpServlet}, annotated beans as tools,
 * the {@code oxmcp.*} properties; driven by the official TypeScript SDK client and the Java
 * client of both eras.
 */
class SpringBootTest {

    /** An application that brings its own server: the example server of JavaServerTest. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ExampleApplication {
        @Bean
        McpServer exampleServer() {
            return ExampleServer.build();
        }
    }

    /** An application with only an annotated bean: the auto-configured server serves it. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Notes.class)
    static class NotesApplication {}

    @Component
    static class Notes {
        final List<String> notes = new CopyOnWriteArrayList<>(List.of("buy milk"));

        @McpTool(description = "Add a note")
        String addNote(String text) {
            notes.add(text);
            return "added " + text + " (" + notes.size() + " notes)";
        }

        @McpResource(uri = "notes://all", mimeType = "text/plain", description = "Every note")
        String all() {
            return String.join("\n", notes);
        }
    }

    static ConfigurableApplicationContext start(Class<?> application, String... properties) {
        return new SpringApplicationBuilder(application)
                .properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off")
                .properties(properties)
                .run();
    }

    static int port(ConfigurableApplicationContext context) {
        return ((ServletWebServerApplicationContext) context).getWebServer().getPort();
    }

    /** Everything the official TS client does against a server (progress, logs, cancel ...)
     *  works the same through Tomcat, on the path the properties name. */
    @Test
    void tsClientThroughTheSpringEndpoint() throws Exception {
        try (ConfigurableApplicationContext context = start(ExampleApplication.class, "oxmcp.path=/api/mcp")) {
            JsonNode out = JavaServerTest.runTsClient("http", "http://127.0.0.1:" + port(context) + "/api/mcp");
            JavaServerTest.assertTsSaw(out);
            assertTrue(ExampleServer.CANCELLED.contains(77L), "the handler saw the TS client's cancel through the servlet");
            Support.eventually("no request left in Java handlers", () -> Native.nativeStats()[1] == 0);
        }
    }

    /** Annotated beans become tools and resources of the server the properties name. */
    @ParameterizedTest
    @ValueSource(strings = {"session", "stateless"})
    void annotatedBeansServeBothEras(String era) throws Exception {
        try (ConfigurableApplicationContext context = start(NotesApplication.class, "oxmcp.name=spring-notes", "oxmcp.version=2.1.0")) {
            String url = "http://127.0.0.1:" + port(context) + "/mcp";
            try (McpClient c = McpClient.connect(McpClient.Options.http(url).era(era)).get(30, TimeUnit.SECONDS)) {
                assertEquals(era, c.era());
                JsonNode info = Support.json(c.initializeResult()).get("serverInfo");
                assertEquals("spring-notes", info.get("name").asText());
                assertEquals("2.1.0", info.get("version").asText());
                List<Types.Tool> tools = c.tools().get(30, TimeUnit.SECONDS);
                assertEquals(List.of("add_note"), tools.stream().map(Types.Tool::name).toList());
                assertEquals("Add a note", tools.get(0).description());
                String added = c.call("add_note", Map.of("text", "call mum")).get(30, TimeUnit.SECONDS).text();
                assertEquals("added call mum (2 notes)", added);
                assertEquals("buy milk\ncall mum", c.read("notes://all").get(30, TimeUnit.SECONDS).text());
                assertEquals(List.of("buy milk", "call mum"), context.getBean(Notes.class).notes);
            }
        }
    }

    /** Only local hosts by default; {@code oxmcp.allowed-hosts} names the others. */
    @Test
    void allowedHostsComeFromProperties() throws Exception {
        try (ConfigurableApplicationContext local = start(NotesApplication.class)) {
            assertEquals(403, initializeStatus(port(local), "mcp.example.com"));
            assertEquals(200, initializeStatus(port(local), "127.0.0.1:" + port(local)));
        }
        try (ConfigurableApplicationContext named = start(NotesApplication.class, "oxmcp.allowed-hosts=mcp.example.com")) {
            assertEquals(200, initializeStatus(port(named), "mcp.example.com"));
            assertEquals(403, initializeStatus(port(named), "other.example.com"));
        }
    }

    /** A body over the engine's limit is refused (413), and the endpoint goes on answering. */
    @Test
    void anOversizedBodyIsRefused() throws Exception {
        try (ConfigurableApplicationContext context = start(NotesApplication.class)) {
            byte[] body = new byte[16 * 1024 * 1024 + 2];
            java.util.Arrays.fill(body, (byte) ' ');
            java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port(context) + "/mcp"))
                            .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(413, answer.statusCode(), answer.body());
            // The endpoint goes on answering.
            assertEquals(200, initializeStatus(port(context), "127.0.0.1:" + port(context)));
        }
    }

    /** The status of an initialize request sent under {@code host} (raw: Java's HTTP client
     *  keeps the Host header to itself). */
    static int initializeStatus(int port, String host) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, text/event-stream\r\nContent-Length: " + bytes.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b; (b = in.read()) >= 0 && b != '\n';) line.write(b);
            String status = line.toString(StandardCharsets.US_ASCII);
            return Integer.parseInt(status.split(" ")[1]);
        }
    }
}
