using System;

namespace OxMcp
{
    /// <summary>
    /// Marks a method as a tool, for <see cref="McpServer.WithTools{T}"/>: its name is
    /// <see cref="Name"/> or the method's in snake_case (<c>SearchNotes</c> → <c>search_notes</c>,
    /// an <c>Async</c> suffix dropped); its description <see cref="Description"/> or the method's
    /// <c>[Description]</c>. Its parameters are the arguments (their input schema derived
    /// from their types; <c>[Description]</c> on a parameter describes it), except those the
    /// server hands over: <see cref="System.Threading.CancellationToken"/>,
    /// <see cref="McpRequestContext"/> and <see cref="IProgress{T}"/> of
    /// <see cref="McpProgress"/> or a number. A returned class, record or struct gives the
    /// output schema and the structured content.
    /// <code>
    /// [McpTool, Description("Adds two numbers")]
    /// public static int Add([Description("the first")] int a, int b = 0) =&gt; a + b;
    /// </code>
    /// </summary>
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public sealed class McpToolAttribute : Attribute
    {
        private bool? _readOnly, _destructive, _idempotent, _openWorld;

        /// <summary>A tool named after its method.</summary>
        public McpToolAttribute() { }

        /// <summary>A tool named <paramref name="name"/>.</summary>
        public McpToolAttribute(string name)
        {
            Name = name;
        }

        /// <summary>The tool's name (default: the method's, snake_case).</summary>
        public string Name { get; set; }

        /// <summary>A title for people, or null.</summary>
        public string Title { get; set; }

        /// <summary>The description (default: the method's <c>[Description]</c>).</summary>
        public string Description { get; set; }

        /// <summary>
        /// Whether a return value that is no object (a number, a list...) is also given as
        /// structured content, <c>{"result": value}</c>, with that output schema. A class,
        /// record or struct always is.
        /// </summary>
        public bool UseStructuredContent { get; set; }

        /// <summary>The <c>readOnlyHint</c> annotation: the tool changes nothing.</summary>
        public bool ReadOnly { get { return _readOnly ?? false; } set { _readOnly = value; } }

        /// <summary>The <c>destructiveHint</c> annotation.</summary>
        public bool Destructive { get { return _destructive ?? true; } set { _destructive = value; } }

        /// <summary>The <c>idempotentHint</c> annotation.</summary>
        public bool Idempotent { get { return _idempotent ?? false; } set { _idempotent = value; } }

        /// <summary>The <c>openWorldHint</c> annotation.</summary>
        public bool OpenWorld { get { return _openWorld ?? true; } set { _openWorld = value; } }

        /// <summary>Whether the tool runs as a task (the tasks extension): <c>optional</c>, <c>required</c> or null (never).</summary>
        public string TaskSupport { get; set; }

        /// <summary>The annotations that were set, as the engine's JSON members.</summary>
        internal System.Collections.Generic.Dictionary<string, object> Annotations()
        {
            var a = new System.Collections.Generic.Dictionary<string, object>();
            if (_readOnly.HasValue) a["readOnlyHint"] = _readOnly.Value;
            if (_destructive.HasValue) a["destructiveHint"] = _destructive.Value;
            if (_idempotent.HasValue) a["idempotentHint"] = _idempotent.Value;
            if (_openWorld.HasValue) a["openWorldHint"] = _openWorld.Value;
            return a;
        }
    }

    /// <summary>
    /// Marks a method as a resource (a fixed URI) or a resource template (a URI with
    /// <c>{variables}</c>), for <see cref="McpServer.WithResources{T}"/>: each variable goes
    /// to the parameter of its name (converted to its type), a parameter named <c>uri</c>
    /// that is no variable gets the URI read. A string return is the text contents (with
    /// <see cref="MimeType"/>), a byte[] the blob, <see cref="ResourceContents"/> (one or
    /// many) or a <see cref="ReadResourceResult"/> as they are, any other value its JSON.
    /// <code>
    /// [McpResource("notes://{name}", MimeType = "text/plain"), Description("A note by name")]
    /// public string Note(string name) =&gt; notes[name];
    /// </code>
    /// </summary>
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public sealed class McpResourceAttribute : Attribute
    {
        /// <summary>A resource at <paramref name="uri"/> (a template when it holds <c>{...}</c>).</summary>
        public McpResourceAttribute(string uri)
        {
            Uri = uri;
        }

        /// <summary>The URI, or the URI template.</summary>
        public string Uri { get; private set; }

        /// <summary>The resource's name (default: the method's, snake_case).</summary>
        public string Name { get; set; }

        /// <summary>A title for people, or null.</summary>
        public string Title { get; set; }

        /// <summary>The description (default: the method's <c>[Description]</c>).</summary>
        public string Description { get; set; }

        /// <summary>The MIME type of what it reads (text: default <c>text/plain</c>).</summary>
        public string MimeType { get; set; }
    }

    /// <summary>
    /// Marks a method as a prompt, for <see cref="McpServer.WithPrompts{T}"/>: named as
    /// <see cref="McpToolAttribute"/> names tools; its parameters are the prompt's arguments
    /// (strings on the wire, converted to their types; required unless they have a default).
    /// A string return is one user message, a <see cref="PromptMessage"/> (one or many), a
    /// <see cref="ContentBlock"/> or a <see cref="GetPromptResult"/> as they are.
    /// <code>
    /// [McpPrompt, Description("Ask for a review of a note")]
    /// public string ReviewNote(string name) =&gt; "Please review this note:\n" + notes[name];
    /// </code>
    /// </summary>
    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public sealed class McpPromptAttribute : Attribute
    {
        /// <summary>A prompt named after its method.</summary>
        public McpPromptAttribute() { }

        /// <summary>A prompt named <paramref name="name"/>.</summary>
        public McpPromptAttribute(string name)
        {
            Name = name;
        }

        /// <summary>The prompt's name (default: the method's, snake_case).</summary>
        public string Name { get; set; }

        /// <summary>A title for people, or null.</summary>
        public string Title { get; set; }

        /// <summary>The description (default: the method's <c>[Description]</c>).</summary>
        public string Description { get; set; }
    }
}
