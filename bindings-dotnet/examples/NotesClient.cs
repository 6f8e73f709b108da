// A client of the notes server (NotesServer.cs): starts it over stdio and calls each of its
// tools, its resource template and its prompt; the results are typed.
//   mono NotesClient.exe [SERVER COMMAND...]   (default: mono NotesServer.exe)
using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

internal sealed class Hits { public string[] Names { get; set; } } // search_notes's structured content

internal static class NotesClient
{
    private static async Task Run(string[] server)
    {
        var handlers = new McpClientHandlers
        {
            Elicitation = (paramsJson, ct) => Task.FromResult("{\"action\": \"accept\", \"content\": {\"confirm\": true, \"reason\": \"obsolete\"}}"),
        };
        using (var client = await McpClient.ConnectStdioAsync(server[0], server.Skip(1).ToArray(), handlers: handlers))
        {
            Console.WriteLine(string.Join(", ", (await client.ListToolsAsync()).Select(t => t.Name)));
            Hits hits = await client.CallToolAsync<Hits>("search_notes", new { search = new { query = "milk", sort = "Newest" } });
            Console.WriteLine(string.Join(", ", hits.Names));
            using (var cts = new CancellationTokenSource(TimeSpan.FromMilliseconds(1200)))
            {
                var progress = new Progress<McpProgress>(p => Console.WriteLine($"progress {p.Progress}/{p.Total}"));
                try { await client.CallToolAsync("reindex", new { steps = 10 }, cts.Token, progress); }
                catch (OperationCanceledException) { Console.WriteLine("cancelled"); }
            }
            Console.WriteLine((await client.CallToolAsync("delete_note", new { name = "todo" })).Text);
            Console.WriteLine((await client.ReadResourceAsync("notes://ideas")).Text);
            Console.WriteLine((await client.GetPromptAsync("review_note", new { name = "ideas" })).Messages[0].Text);
        }
    }

    private static void Main(string[] args)
    {
        Run(args.Length > 0 ? args : new[] { "mono", "NotesServer.exe" }).GetAwaiter().GetResult();
    }
}
