// The protocol's objects as .NET types: what McpClient returns (tools, resources, prompts,
// results and their content blocks) and what a typed handler may return. Each keeps the
// members it does not model (annotations, _meta...) and gives them back in Json.
using System;
using System.Collections.Generic;
using System.Linq;

namespace OxMcp
{
    /// <summary>
    /// An MCP object: its typed properties, and <see cref="Json"/>, the object as JSON (what the
    /// peer sent, with the properties' current values; members without a property, such as
    /// <c>annotations</c> or <c>_meta</c>, kept as they came).
    /// </summary>
    public abstract class McpObject
    {
        private Dictionary<string, object> _received;

        internal McpObject() { }

        /// <summary>The object as JSON.</summary>
        public string Json
        {
            get
            {
                var node = _received == null ? new Dictionary<string, object>() : new Dictionary<string, object>(_received);
                Fill(node);
                return JsonCodec.Write(node);
            }
        }

        /// <summary>The object as JSON (<see cref="Json"/>).</summary>
        public override string ToString()
        {
            return Json;
        }

        /// <summary>Reads the typed properties from a received object.</summary>
        internal abstract void Read(Dictionary<string, object> node);

        /// <summary>Writes the typed properties into <paramref name="node"/> (null ones removed).</summary>
        internal abstract void Fill(Dictionary<string, object> node);

        internal static T From<T>(object node) where T : McpObject, new()
        {
            var o = node as Dictionary<string, object>;
            if (o == null) throw new McpException(McpStatus.Protocol, "expected a " + typeof(T).Name + " object, got " + JsonCodec.Write(node), null, null);
            var t = new T();
            t.Load(o);
            return t;
        }

        internal void Load(Dictionary<string, object> node)
        {
            _received = node;
            Read(node);
        }

        internal static List<T> Items<T>(object array, Func<object, T> read)
        {
            var a = array as List<object>;
            return a == null ? new List<T>() : a.Select(read).ToList();
        }

        internal static string Str(Dictionary<string, object> o, string key)
        {
            object v;
            return o.TryGetValue(key, out v) ? v as string : null;
        }

        internal static object Get(Dictionary<string, object> o, string key)
        {
            object v;
            return o.TryGetValue(key, out v) ? v : null;
        }

        internal static string Raw(Dictionary<string, object> o, string key)
        {
            object v;
            return o.TryGetValue(key, out v) ? JsonCodec.Write(v) : null;
        }

        internal static void Put(Dictionary<string, object> o, string key, object value)
        {
            if (value == null) o.Remove(key);
            else o[key] = value;
        }

        internal static void PutRaw(Dictionary<string, object> o, string key, string json)
        {
            Put(o, key, json == null ? null : new RawJson(json));
        }
    }

    /// <summary>
    /// A content block of a tool result or a prompt message: <see cref="TextContentBlock"/>,
    /// <see cref="ImageContentBlock"/>, <see cref="AudioContentBlock"/>,
    /// <see cref="EmbeddedResourceBlock"/> or <see cref="ResourceLinkBlock"/> (a type this
    /// library does not know is a plain ContentBlock: read its <see cref="McpObject.Json"/>).
    /// </summary>
    public class ContentBlock : McpObject
    {
        private string _type;

        internal ContentBlock() { }

        internal ContentBlock(string type)
        {
            _type = type;
        }

        /// <summary><c>text</c>, <c>image</c>, <c>audio</c>, <c>resource</c>, <c>resource_link</c>...</summary>
        public string Type { get { return _type; } }

        internal override void Read(Dictionary<string, object> node)
        {
            _type = Str(node, "type");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["type"] = _type;
        }

        internal static ContentBlock FromNode(object node)
        {
            var o = node as Dictionary<string, object>;
            ContentBlock b;
            switch (o == null ? null : Str(o, "type"))
            {
                case "text": b = new TextContentBlock(); break;
                case "image": b = new ImageContentBlock(); break;
                case "audio": b = new AudioContentBlock(); break;
                case "resource": b = new EmbeddedResourceBlock(); break;
                case "resource_link": b = new ResourceLinkBlock(); break;
                default:
                    if (o == null) throw new McpException(McpStatus.Protocol, "a content block is not an object: " + JsonCodec.Write(node), null, null);
                    b = new ContentBlock();
                    break;
            }
            b.Load(o);
            return b;
        }
    }

    /// <summary>A text block: <c>{"type": "text", "text": ...}</c>.</summary>
    public sealed class TextContentBlock : ContentBlock
    {
        /// <summary>An empty text block.</summary>
        public TextContentBlock() : base("text") { }

        /// <summary>A block of <paramref name="text"/>.</summary>
        public TextContentBlock(string text) : base("text")
        {
            Text = text;
        }

        /// <summary>The text.</summary>
        public string Text { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            base.Read(node);
            Text = Str(node, "text");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            base.Fill(node);
            node["text"] = Text ?? "";
        }
    }

    /// <summary>Base64 data with a MIME type (an image or audio block).</summary>
    public abstract class DataContentBlock : ContentBlock
    {
        internal DataContentBlock(string type, byte[] data, string mimeType) : base(type)
        {
            if (data != null) Data = Convert.ToBase64String(data);
            MimeType = mimeType;
        }

        /// <summary>The data, base64.</summary>
        public string Data { get; set; }

        /// <summary>The data's MIME type (<c>image/png</c>, <c>audio/wav</c>...).</summary>
        public string MimeType { get; set; }

        /// <summary>The data decoded.</summary>
        public byte[] Bytes { get { return Data == null ? null : Convert.FromBase64String(Data); } }

        internal override void Read(Dictionary<string, object> node)
        {
            base.Read(node);
            Data = Str(node, "data");
            MimeType = Str(node, "mimeType");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            base.Fill(node);
            node["data"] = Data ?? "";
            Put(node, "mimeType", MimeType);
        }
    }

    /// <summary>An image block: <c>{"type": "image", "data", "mimeType"}</c>.</summary>
    public sealed class ImageContentBlock : DataContentBlock
    {
        /// <summary>An empty image block.</summary>
        public ImageContentBlock() : base("image", null, null) { }

        /// <summary>An image of <paramref name="data"/> (encoded here).</summary>
        public ImageContentBlock(byte[] data, string mimeType) : base("image", data, mimeType) { }
    }

    /// <summary>An audio block: <c>{"type": "audio", "data", "mimeType"}</c>.</summary>
    public sealed class AudioContentBlock : DataContentBlock
    {
        /// <summary>An empty audio block.</summary>
        public AudioContentBlock() : base("audio", null, null) { }

        /// <summary>Audio of <paramref name="data"/> (encoded here).</summary>
        public AudioContentBlock(byte[] data, string mimeType) : base("audio", data, mimeType) { }
    }

    /// <summary>A resource embedded in a result: <c>{"type": "resource", "resource": {...}}</c>.</summary>
    public sealed class EmbeddedResourceBlock : ContentBlock
    {
        /// <summary>An empty block.</summary>
        public EmbeddedResourceBlock() : base("resource") { }

        /// <summary>A block embedding <paramref name="resource"/>.</summary>
        public EmbeddedResourceBlock(ResourceContents resource) : base("resource")
        {
            Resource = resource;
        }

        /// <summary>The resource's contents.</summary>
        public ResourceContents Resource { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            base.Read(node);
            object r = Get(node, "resource");
            Resource = r == null ? null : ResourceContents.FromNode(r);
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            base.Fill(node);
            Put(node, "resource", Resource);
        }
    }

    /// <summary>A link to a resource: <c>{"type": "resource_link", "uri", "name", ...}</c>.</summary>
    public sealed class ResourceLinkBlock : ContentBlock
    {
        /// <summary>An empty link.</summary>
        public ResourceLinkBlock() : base("resource_link") { }

        /// <summary>The resource's URI.</summary>
        public string Uri { get; set; }
        /// <summary>Its name.</summary>
        public string Name { get; set; }
        /// <summary>Its title, or null.</summary>
        public string Title { get; set; }
        /// <summary>Its description, or null.</summary>
        public string Description { get; set; }
        /// <summary>Its MIME type, or null.</summary>
        public string MimeType { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            base.Read(node);
            Uri = Str(node, "uri");
            Name = Str(node, "name");
            Title = Str(node, "title");
            Description = Str(node, "description");
            MimeType = Str(node, "mimeType");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            base.Fill(node);
            Put(node, "uri", Uri);
            Put(node, "name", Name);
            Put(node, "title", Title);
            Put(node, "description", Description);
            Put(node, "mimeType", MimeType);
        }
    }

    /// <summary>The contents of a resource: <see cref="TextResourceContents"/> or <see cref="BlobResourceContents"/>.</summary>
    public abstract class ResourceContents : McpObject
    {
        internal ResourceContents() { }

        /// <summary>The resource's URI.</summary>
        public string Uri { get; set; }

        /// <summary>Its MIME type, or null.</summary>
        public string MimeType { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            Uri = Str(node, "uri");
            MimeType = Str(node, "mimeType");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["uri"] = Uri ?? "";
            Put(node, "mimeType", MimeType);
        }

        internal static ResourceContents FromNode(object node)
        {
            var o = node as Dictionary<string, object>;
            if (o == null) throw new McpException(McpStatus.Protocol, "resource contents are not an object: " + JsonCodec.Write(node), null, null);
            ResourceContents c = o.ContainsKey("blob") ? (ResourceContents)new BlobResourceContents() : new TextResourceContents();
            c.Load(o);
            return c;
        }
    }

    /// <summary>A text resource: <c>{"uri", "mimeType", "text"}</c>.</summary>
    public sealed class TextResourceContents : ResourceContents
    {
        /// <summary>Empty contents.</summary>
        public TextResourceContents() { }

        /// <summary>The text <paramref name="text"/> of <paramref name="uri"/>.</summary>
        public TextResourceContents(string uri, string text, string mimeType = "text/plain")
        {
            Uri = uri;
            Text = text;
            MimeType = mimeType;
        }

        /// <summary>The text.</summary>
        public string Text { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            base.Read(node);
            Text = Str(node, "text");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            base.Fill(node);
            node["text"] = Text ?? "";
        }
    }

    /// <summary>A binary resource: <c>{"uri", "mimeType", "blob"}</c> (base64).</summary>
    public sealed class BlobResourceContents : ResourceContents
    {
        /// <summary>Empty contents.</summary>
        public BlobResourceContents() { }

        /// <summary>The bytes <paramref name="data"/> of <paramref name="uri"/> (encoded here).</summary>
        public BlobResourceContents(string uri, byte[] data, string mimeType = "application/octet-stream")
        {
            Uri = uri;
            Blob = Convert.ToBase64String(data ?? new byte[0]);
            MimeType = mimeType;
        }

        /// <summary>The data, base64.</summary>
        public string Blob { get; set; }

        /// <summary>The data decoded.</summary>
        public byte[] Bytes { get { return Blob == null ? null : Convert.FromBase64String(Blob); } }

        internal override void Read(Dictionary<string, object> node)
        {
            base.Read(node);
            Blob = Str(node, "blob");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            base.Fill(node);
            node["blob"] = Blob ?? "";
        }
    }

    /// <summary>
    /// A tool's result: its content blocks, its structured content (JSON) and whether it is
    /// an error (a tool that failed; <see cref="Text"/> then says why).
    /// <code>
    /// CallToolResult r = await client.CallToolAsync("search", new { query = "milk" });
    /// Console.WriteLine(r.Text);                      // the text blocks
    /// Hits hits = r.StructuredContent&lt;Hits&gt;();       // or: await client.CallToolAsync&lt;Hits&gt;(...)
    /// </code>
    /// </summary>
    public sealed class CallToolResult : McpObject
    {
        /// <summary>The content blocks.</summary>
        public IList<ContentBlock> Content { get; set; } = new List<ContentBlock>();

        /// <summary>The structured content as JSON text (an object), or null.</summary>
        public string StructuredContentJson { get; set; }

        /// <summary>Whether the tool failed.</summary>
        public bool IsError { get; set; }

        /// <summary>The text of the text blocks, one per line.</summary>
        public string Text
        {
            get { return string.Join("\n", Content.OfType<TextContentBlock>().Select(b => b.Text)); }
        }

        /// <summary>
        /// The structured content read as <typeparamref name="T"/> (null when there is none). A
        /// value that is not an object comes wrapped as <c>{"result": value}</c> (the engine's
        /// rule for a tool with an output schema): a <typeparamref name="T"/> that is no object
        /// reads the wrapped value.
        /// </summary>
        public T StructuredContent<T>()
        {
            if (StructuredContentJson == null) return default(T);
            object node = JsonCodec.Parse(StructuredContentJson);
            var o = node as Dictionary<string, object>;
            object wrapped;
            if (o != null && o.Count == 1 && o.TryGetValue("result", out wrapped) && !ReadsObject(typeof(T))) node = wrapped;
            return (T)JsonCodec.To(node, typeof(T), "structuredContent");
        }

        /// <summary>Whether a JSON object can be read as <paramref name="t"/>.</summary>
        internal static bool ReadsObject(Type t)
        {
            t = Nullable.GetUnderlyingType(t) ?? t;
            Type item;
            return t == typeof(object) || !(t.IsPrimitive || t.IsEnum || t == typeof(string) || t == typeof(decimal) || JsonCodec.IsSequence(t, out item)) ;
        }

        internal override void Read(Dictionary<string, object> node)
        {
            Content = Items(Get(node, "content"), ContentBlock.FromNode);
            StructuredContentJson = Raw(node, "structuredContent");
            IsError = Get(node, "isError") is bool && (bool)Get(node, "isError");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["content"] = Content ?? new List<ContentBlock>();
            PutRaw(node, "structuredContent", StructuredContentJson);
            Put(node, "isError", IsError ? (object)true : node.ContainsKey("isError") ? (object)false : null);
        }
    }

    /// <summary>A tool a server offers (<c>tools/list</c>).</summary>
    public sealed class Tool : McpObject
    {
        /// <summary>Its name.</summary>
        public string Name { get; set; }
        /// <summary>Its title, or null.</summary>
        public string Title { get; set; }
        /// <summary>Its description, or null.</summary>
        public string Description { get; set; }
        /// <summary>The JSON Schema of its arguments.</summary>
        public string InputSchemaJson { get; set; }
        /// <summary>The JSON Schema of its structured content, or null.</summary>
        public string OutputSchemaJson { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            Name = Str(node, "name");
            Title = Str(node, "title");
            Description = Str(node, "description");
            InputSchemaJson = Raw(node, "inputSchema");
            OutputSchemaJson = Raw(node, "outputSchema");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["name"] = Name ?? "";
            Put(node, "title", Title);
            Put(node, "description", Description);
            PutRaw(node, "inputSchema", InputSchemaJson ?? "{\"type\":\"object\"}");
            PutRaw(node, "outputSchema", OutputSchemaJson);
        }
    }

    /// <summary>A resource a server lists (<c>resources/list</c>).</summary>
    public sealed class Resource : McpObject
    {
        /// <summary>Its URI.</summary>
        public string Uri { get; set; }
        /// <summary>Its name.</summary>
        public string Name { get; set; }
        /// <summary>Its title, or null.</summary>
        public string Title { get; set; }
        /// <summary>Its description, or null.</summary>
        public string Description { get; set; }
        /// <summary>Its MIME type, or null.</summary>
        public string MimeType { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            Uri = Str(node, "uri");
            Name = Str(node, "name");
            Title = Str(node, "title");
            Description = Str(node, "description");
            MimeType = Str(node, "mimeType");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["uri"] = Uri ?? "";
            node["name"] = Name ?? "";
            Put(node, "title", Title);
            Put(node, "description", Description);
            Put(node, "mimeType", MimeType);
        }
    }

    /// <summary>A resource template a server lists (<c>resources/templates/list</c>).</summary>
    public sealed class ResourceTemplate : McpObject
    {
        /// <summary>Its URI template (RFC 6570), e.g. <c>notes://{name}</c>.</summary>
        public string UriTemplate { get; set; }
        /// <summary>Its name.</summary>
        public string Name { get; set; }
        /// <summary>Its title, or null.</summary>
        public string Title { get; set; }
        /// <summary>Its description, or null.</summary>
        public string Description { get; set; }
        /// <summary>The MIME type of what it reads, or null.</summary>
        public string MimeType { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            UriTemplate = Str(node, "uriTemplate");
            Name = Str(node, "name");
            Title = Str(node, "title");
            Description = Str(node, "description");
            MimeType = Str(node, "mimeType");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["uriTemplate"] = UriTemplate ?? "";
            node["name"] = Name ?? "";
            Put(node, "title", Title);
            Put(node, "description", Description);
            Put(node, "mimeType", MimeType);
        }
    }

    /// <summary>A prompt a server offers (<c>prompts/list</c>).</summary>
    public sealed class Prompt : McpObject
    {
        /// <summary>Its name.</summary>
        public string Name { get; set; }
        /// <summary>Its title, or null.</summary>
        public string Title { get; set; }
        /// <summary>Its description, or null.</summary>
        public string Description { get; set; }
        /// <summary>Its arguments.</summary>
        public IList<PromptArgument> Arguments { get; set; } = new List<PromptArgument>();

        internal override void Read(Dictionary<string, object> node)
        {
            Name = Str(node, "name");
            Title = Str(node, "title");
            Description = Str(node, "description");
            Arguments = Items(Get(node, "arguments"), From<PromptArgument>);
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["name"] = Name ?? "";
            Put(node, "title", Title);
            Put(node, "description", Description);
            Put(node, "arguments", Arguments != null && Arguments.Count > 0 ? Arguments : null);
        }
    }

    /// <summary>An argument of a <see cref="Prompt"/>.</summary>
    public sealed class PromptArgument : McpObject
    {
        /// <summary>Its name.</summary>
        public string Name { get; set; }
        /// <summary>Its title, or null.</summary>
        public string Title { get; set; }
        /// <summary>Its description, or null.</summary>
        public string Description { get; set; }
        /// <summary>Whether the prompt needs it.</summary>
        public bool Required { get; set; }

        internal override void Read(Dictionary<string, object> node)
        {
            Name = Str(node, "name");
            Title = Str(node, "title");
            Description = Str(node, "description");
            Required = Get(node, "required") is bool && (bool)Get(node, "required");
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["name"] = Name ?? "";
            Put(node, "title", Title);
            Put(node, "description", Description);
            Put(node, "required", Required ? (object)true : null);
        }
    }

    /// <summary>A message of a prompt: a role (<c>user</c> or <c>assistant</c>) and one content block.</summary>
    public sealed class PromptMessage : McpObject
    {
        /// <summary>An empty message.</summary>
        public PromptMessage() { }

        /// <summary>A message of <paramref name="role"/> holding <paramref name="content"/>.</summary>
        public PromptMessage(string role, ContentBlock content)
        {
            Role = role;
            Content = content;
        }

        /// <summary>A user message of <paramref name="text"/>.</summary>
        public static PromptMessage User(string text)
        {
            return new PromptMessage("user", new TextContentBlock(text));
        }

        /// <summary>An assistant message of <paramref name="text"/>.</summary>
        public static PromptMessage Assistant(string text)
        {
            return new PromptMessage("assistant", new TextContentBlock(text));
        }

        /// <summary><c>user</c> or <c>assistant</c>.</summary>
        public string Role { get; set; }

        /// <summary>The content.</summary>
        public ContentBlock Content { get; set; }

        /// <summary>The text, when the content is a text block (else null).</summary>
        public string Text { get { var t = Content as TextContentBlock; return t == null ? null : t.Text; } }

        internal override void Read(Dictionary<string, object> node)
        {
            Role = Str(node, "role");
            object c = Get(node, "content");
            Content = c == null ? null : ContentBlock.FromNode(c);
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["role"] = Role ?? "user";
            Put(node, "content", Content);
        }
    }

    /// <summary>A prompt's messages (<c>prompts/get</c>).</summary>
    public sealed class GetPromptResult : McpObject
    {
        /// <summary>A description of the prompt, or null.</summary>
        public string Description { get; set; }

        /// <summary>The messages.</summary>
        public IList<PromptMessage> Messages { get; set; } = new List<PromptMessage>();

        internal override void Read(Dictionary<string, object> node)
        {
            Description = Str(node, "description");
            Messages = Items(Get(node, "messages"), From<PromptMessage>);
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            Put(node, "description", Description);
            node["messages"] = Messages ?? new List<PromptMessage>();
        }
    }

    /// <summary>What reading a resource gave (<c>resources/read</c>).</summary>
    public sealed class ReadResourceResult : McpObject
    {
        /// <summary>The contents (usually one).</summary>
        public IList<ResourceContents> Contents { get; set; } = new List<ResourceContents>();

        /// <summary>The text of the first text contents, or null.</summary>
        public string Text
        {
            get
            {
                var t = Contents.OfType<TextResourceContents>().FirstOrDefault();
                return t == null ? null : t.Text;
            }
        }

        internal override void Read(Dictionary<string, object> node)
        {
            Contents = Items(Get(node, "contents"), ResourceContents.FromNode);
        }

        internal override void Fill(Dictionary<string, object> node)
        {
            node["contents"] = Contents ?? new List<ResourceContents>();
        }
    }

    /// <summary>
    /// The user's answer to <see cref="McpRequestContext.ElicitAsync{T}"/>: the action
    /// (<c>accept</c>, <c>decline</c>, <c>cancel</c>) and, when accepted, the form's content.
    /// </summary>
    public sealed class McpElicitResult<T>
    {
        internal McpElicitResult(string action, T content)
        {
            Action = action;
            Content = content;
        }

        /// <summary><c>accept</c>, <c>decline</c> or <c>cancel</c>.</summary>
        public string Action { get; private set; }

        /// <summary>What the user entered (when accepted; else the default of <typeparamref name="T"/>).</summary>
        public T Content { get; private set; }

        /// <summary>Whether the user accepted (and <see cref="Content"/> holds the answer).</summary>
        public bool IsAccepted { get { return Action == "accept"; } }
    }
}
