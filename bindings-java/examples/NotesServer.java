// The notes server (the hostdx server, ../shared/hostdx) on oxmcp for Java: tools, a resource
// template and a prompt from annotated methods, their schemas derived from the parameters and
// records; over stdio. Compiled with -parameters (Maven's and Spring Boot's usual setting).
import dev.oxmcp.*;
import java.util.*;
import java.util.concurrent.CompletableFuture;

public final class NotesServer {
    final Map<String, String> notes = new HashMap<>(Map.of("todo", "buy milk", "ideas", "write a parser"));

    enum Sort { newest, oldest, relevance }
    record Search(@McpParam(description = "text to look for") String query, Sort sort, @McpParam(required = false) Integer limit) {}
    record Hits(List<String> names) {}
    record Confirm(boolean confirm, Optional<String> reason) {}

    @McpTool(description = "Search the notes")
    Hits searchNotes(Search search) {
        return new Hits(notes.entrySet().stream().filter(e -> e.getValue().contains(search.query()))
            .map(Map.Entry::getKey).limit(search.limit() == null ? Long.MAX_VALUE : search.limit()).toList());
    }

    @McpTool(description = "Rebuild the index, reporting progress")
    String reindex(RequestContext ctx, int steps) throws InterruptedException {
        for (int i = 0; i < steps; i++) {
            ctx.progress(i + 1, (double) steps, "step " + (i + 1));
            Thread.sleep(500); // a client's cancel interrupts it
        }
        return "reindexed";
    }

    @McpTool(description = "Delete a note after asking the user")
    CompletableFuture<String> deleteNote(RequestContext ctx, String name) {
        return ctx.elicit("Delete " + name + "?", Confirm.class).thenApply(answer -> {
            if (!answer.accepted() || !answer.content().confirm()) return "kept";
            notes.remove(name);
            return "deleted (" + answer.content().reason().orElse("") + ")";
        });
    }

    @McpResource(uri = "notes://{name}", name = "note", description = "A note by name", mimeType = "text/plain")
    String note(String name) { return notes.get(name); }

    @McpPrompt(description = "Ask for a review of a note")
    String reviewNote(String name) { return "Please review this note:\n" + notes.getOrDefault(name, ""); }

    public static void main(String[] args) {
        try (McpServer server = new McpServer("notes", "1.0.0").register(new NotesServer())) {
            server.serveStdio().join(); // or HTTP: String url = server.startHttp("127.0.0.1", 8000).join();
        }
    }
}
