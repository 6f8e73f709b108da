using System.Globalization;
using System.Text;

namespace OxMcp
{
    /// <summary>Small JSON helpers for building results without a JSON library.</summary>
    public static class McpJson
    {
        /// <summary>A JSON string literal for <paramref name="s"/> (quoted and escaped).</summary>
        public static string Quote(string s)
        {
            if (s == null) return "null";
            var b = new StringBuilder(s.Length + 2);
            b.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': b.Append("\\\""); break;
                    case '\\': b.Append("\\\\"); break;
                    case '\n': b.Append("\\n"); break;
                    case '\r': b.Append("\\r"); break;
                    case '\t': b.Append("\\t"); break;
                    default:
                        if (c < 0x20) b.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else b.Append(c);
                        break;
                }
            }
            return b.Append('"').ToString();
        }

        /// <summary>A <c>CallToolResult</c> with one text block.</summary>
        public static string TextResult(string text)
        {
            return "{\"content\":[{\"type\":\"text\",\"text\":" + Quote(text) + "}]}";
        }

        /// <summary>A <c>CallToolResult</c> with one text block and structured content (JSON).</summary>
        public static string StructuredResult(string text, string structuredJson)
        {
            return "{\"content\":[{\"type\":\"text\",\"text\":" + Quote(text) + "}],\"structuredContent\":" + structuredJson + "}";
        }

        /// <summary>A <c>ReadResourceResult</c> with one text content.</summary>
        public static string TextResource(string uri, string text, string mimeType = "text/plain")
        {
            return "{\"contents\":[{\"uri\":" + Quote(uri) + ",\"mimeType\":" + Quote(mimeType) + ",\"text\":" + Quote(text) + "}]}";
        }

        /// <summary>A <c>GetPromptResult</c> with one user text message.</summary>
        public static string UserPrompt(string text)
        {
            return "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":" + Quote(text) + "}}]}";
        }
    }
}
