// The notes client (the hostdx client, ../shared/hostdx) on oxmcp for Java: starts NotesServer
// over stdio and calls each tool, the template and the prompt with records in and out.
import dev.oxmcp.*;
import java.util.*;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

public final class NotesClient {
    record Search(String query, String sort) {}
    record Hits(List<String> names) {}

    public static void main(String[] args) throws Exception {
        var options = McpClient.Options.stdio("java", "-cp", System.getProperty("java.class.path"), "NotesServer")
            .onElicitation((params, ctx) -> CompletableFuture.completedFuture("{\"action\": \"accept\", \"content\": {\"confirm\": true, \"reason\": \"obsolete\"}}"));
        try (McpClient client = McpClient.connect(options).join()) {
            client.tools().join().forEach(t -> System.out.println(t.name()));
            System.out.println(client.call("search_notes", Map.of("search", new Search("milk", "newest")), Hits.class).join());
            var reindex = client.call("reindex", Map.of("steps", 10), RequestOptions.defaults()
                .onProgress((p, total, message) -> System.out.printf("progress %.0f/%.0f%n", p, total)));
            try {
                reindex.get(1200, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                reindex.cancel(true); // on the wire: notifications/cancelled, and the server's method is interrupted
                System.out.println("cancelled");
            }
            System.out.println(client.call("delete_note", Map.of("name", "todo")).join().text());
            System.out.println(client.read("notes://ideas").join().text());
            System.out.println(((Types.Text) client.prompt("review_note", Map.of("name", "ideas")).join().messages().get(0).content()).text());
        }
    }
}
