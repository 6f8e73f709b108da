// The notes server (the hostdx server: /work/shared/hostdx) on OxMcp, in the C# 7.2 mono
// compiles: tools, a resource template and a prompt from attributed methods, their schemas
// derived from the parameters; over stdio.
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

public enum Sort { Newest, Oldest, Relevance }

public sealed class Search // a record in C# 9: record Search(string Query, Sort Sort = Sort.Relevance, int? Limit = null)
{
    public Search([Description("text to look for")] string query, Sort sort = Sort.Relevance, int? limit = null)
    {
        Query = query; Sort = sort; Limit = limit;
    }
    public string Query { get; }
    public Sort Sort { get; }
    public int? Limit { get; }
}

public sealed class Hits { public string[] Names { get; set; } }

public sealed class Confirmation { public bool Confirm { get; set; } public string Reason { get; set; } }

public sealed class Notes
{
    private readonly Dictionary<string, string> _notes = new Dictionary<string, string> { ["todo"] = "buy milk", ["ideas"] = "write a parser" };

    [McpTool, Description("Search the notes")]
    public Hits SearchNotes(Search search) =>
        new Hits { Names = _notes.Where(n => n.Value.Contains(search.Query)).Select(n => n.Key).Take(search.Limit ?? int.MaxValue).ToArray() };

    [McpTool, Description("Rebuild the index, reporting progress")]
    public async Task<string> Reindex(int steps, IProgress<McpProgress> progress, CancellationToken ct)
    {
        for (int i = 0; i < steps; i++)
        {
            progress.Report(new McpProgress(i + 1, steps, $"step {i + 1}"));
            await Task.Delay(500, ct); // throws OperationCanceledException when the client cancels
        }
        return "reindexed";
    }

    [McpTool, Description("Delete a note after asking the user")]
    public async Task<string> DeleteNote(string name, McpRequestContext ctx, CancellationToken ct)
    {
        var answer = await ctx.ElicitAsync<Confirmation>($"Delete {name}?", ct);
        if (!answer.IsAccepted || !answer.Content.Confirm) return "kept";
        _notes.Remove(name);
        return $"deleted ({answer.Content.Reason})";
    }

    [McpResource("notes://{name}", Name = "note", MimeType = "text/plain"), Description("A note by name")]
    public string Note(string name) => _notes[name];

    [McpPrompt, Description("Ask for a review of a note")]
    public string ReviewNote(string name) => $"Please review this note:\n{(_notes.ContainsKey(name) ? _notes[name] : "")}";

    public static void Main(string[] args)
    {
        var notes = new Notes();
        using (var server = new McpServer("notes", "1.0.0").WithTools(notes).WithResources(notes).WithPrompts(notes))
            server.ServeStdioAsync().GetAwaiter().GetResult(); // or HTTP: await server.StartHttpAsync("127.0.0.1:8000")
    }
}
