// Tools, resources and prompts from attributed methods ([McpTool], [McpResource],
// [McpPrompt]): the definition (schemas included) derived by reflection, the arguments read
// into the parameters' types, what the server hands over injected, the return value turned
// into the result the kind owes. Registered through the same door as every handler.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Reflection;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;

namespace OxMcp
{
    public sealed partial class McpServer
    {
        /// <summary>
        /// Registers every <see cref="McpToolAttribute"/> method of <typeparamref name="T"/>: its
        /// static ones, and its instance ones on a new <typeparamref name="T"/> per call (made
        /// with its public parameterless constructor; disposed after the call when it is
        /// <see cref="IDisposable"/>). Before or while serving. A method whose parameters or
        /// return type no JSON Schema describes throws ArgumentException naming it.
        /// <code>
        /// server.WithTools&lt;NotesTools&gt;().WithResources&lt;NotesTools&gt;();
        /// </code>
        /// </summary>
        public McpServer WithTools<T>()
        {
            return WithTools(typeof(T));
        }

        /// <summary>Registers the <see cref="McpToolAttribute"/> methods of <paramref name="type"/> (a static class too) as <see cref="WithTools{T}"/> does.</summary>
        public McpServer WithTools(Type type)
        {
            return Bind(type, null, Kind.Tool);
        }

        /// <summary>Registers the <see cref="McpToolAttribute"/> methods of <paramref name="target"/>'s type, its instance methods called on <paramref name="target"/>.</summary>
        public McpServer WithTools(object target)
        {
            if (target == null) throw new ArgumentNullException("target");
            return Bind(target.GetType(), target, Kind.Tool);
        }

        /// <summary>Registers every <see cref="McpResourceAttribute"/> method of <typeparamref name="T"/> (as <see cref="WithTools{T}"/> does tools).</summary>
        public McpServer WithResources<T>()
        {
            return WithResources(typeof(T));
        }

        /// <summary>Registers the <see cref="McpResourceAttribute"/> methods of <paramref name="type"/>.</summary>
        public McpServer WithResources(Type type)
        {
            return Bind(type, null, Kind.Resource);
        }

        /// <summary>Registers the <see cref="McpResourceAttribute"/> methods of <paramref name="target"/>'s type, called on <paramref name="target"/>.</summary>
        public McpServer WithResources(object target)
        {
            if (target == null) throw new ArgumentNullException("target");
            return Bind(target.GetType(), target, Kind.Resource);
        }

        /// <summary>Registers every <see cref="McpPromptAttribute"/> method of <typeparamref name="T"/> (as <see cref="WithTools{T}"/> does tools).</summary>
        public McpServer WithPrompts<T>()
        {
            return WithPrompts(typeof(T));
        }

        /// <summary>Registers the <see cref="McpPromptAttribute"/> methods of <paramref name="type"/>.</summary>
        public McpServer WithPrompts(Type type)
        {
            return Bind(type, null, Kind.Prompt);
        }

        /// <summary>Registers the <see cref="McpPromptAttribute"/> methods of <paramref name="target"/>'s type, called on <paramref name="target"/>.</summary>
        public McpServer WithPrompts(object target)
        {
            if (target == null) throw new ArgumentNullException("target");
            return Bind(target.GetType(), target, Kind.Prompt);
        }

        private enum Kind { Tool, Resource, Prompt }

        private McpServer Bind(Type type, object target, Kind kind)
        {
            if (type == null) throw new ArgumentNullException("type");
            Type attribute = kind == Kind.Tool ? typeof(McpToolAttribute) : kind == Kind.Resource ? typeof(McpResourceAttribute) : typeof(McpPromptAttribute);
            MethodInfo[] methods = type.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static)
                                       .Where(m => m.IsDefined(attribute, true)).OrderBy(m => m.MetadataToken).ToArray();
            if (methods.Length == 0) throw new ArgumentException(type.Name + " has no [" + attribute.Name.Replace("Attribute", "") + "] method");
            // Everything is derived (and refused) before anything is registered.
            var bound = new List<KeyValuePair<string, McpHandler>>();
            foreach (MethodInfo m in methods)
            {
                try
                {
                    var method = new TypedMethod(m, type, target);
                    object a = m.GetCustomAttributes(attribute, true)[0];
                    if (kind == Kind.Tool) bound.Add(method.Tool((McpToolAttribute)a));
                    else if (kind == Kind.Resource) bound.Add(method.Resource((McpResourceAttribute)a));
                    else bound.Add(method.Prompt((McpPromptAttribute)a));
                }
                catch (ArgumentException e)
                {
                    throw new ArgumentException(type.Name + "." + m.Name + ": " + e.Message, e);
                }
            }
            string door = kind == Kind.Tool ? "tool" : kind == Kind.Prompt ? "prompt" : null;
            foreach (var b in bound)
                Register(door ?? (JsonCodec.Object(b.Key).ContainsKey("uriTemplate") ? "resource template" : "resource"), b.Key, b.Value);
            return this;
        }
    }

    /// <summary>One attributed method: its parameters, what it returns, how it is called.</summary>
    internal sealed class TypedMethod
    {
        private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;
        private readonly MethodInfo _method;
        private readonly Type _type;
        private readonly object _target;
        private readonly ParameterInfo[] _params;
        /// <summary>What the method's Task (or itself) gives; null for nothing.</summary>
        private readonly Type _result;

        /// <summary><paramref name="method"/> of <paramref name="type"/>; an instance method is
        /// called on <paramref name="target"/>, else on a new instance per call.</summary>
        internal TypedMethod(MethodInfo method, Type type, object target)
        {
            _method = method;
            _type = type;
            _target = target;
            if (!method.IsStatic && target == null && (type.IsAbstract || type.GetConstructor(Type.EmptyTypes) == null))
                throw new ArgumentException("an instance method of a type without a public parameterless constructor: register an instance (WithTools(instance))");
            _params = method.GetParameters();
            _result = Unwrap(method.ReturnType);
            foreach (ParameterInfo p in _params)
            {
                if (p.ParameterType.IsByRef) throw new ArgumentException("the parameter " + p.Name + " is ref or out");
                Type progress = ProgressOf(p.ParameterType);
                if (progress != null && progress != typeof(McpProgress) && !JsonCodec.IsInteger(progress) && !JsonCodec.IsNumber(progress))
                    throw new ArgumentException("the parameter " + p.Name + " is IProgress<" + progress.Name + ">: IProgress of McpProgress or of a number reports progress");
            }
        }

        private static Type Unwrap(Type t)
        {
            if (t == typeof(void) || t == typeof(Task) || t.FullName == "System.Threading.Tasks.ValueTask") return null;
            if (t.IsGenericType)
            {
                Type def = t.GetGenericTypeDefinition();
                if (def == typeof(Task<>) || def.FullName == "System.Threading.Tasks.ValueTask`1") return t.GetGenericArguments()[0];
            }
            return t;
        }

        private static Type ProgressOf(Type t)
        {
            return t.IsGenericType && t.GetGenericTypeDefinition() == typeof(IProgress<>) ? t.GetGenericArguments()[0] : null;
        }

        private static bool Injected(Type t)
        {
            return t == typeof(CancellationToken) || t == typeof(McpRequestContext) || ProgressOf(t) != null;
        }

        /// <summary>The parameters the client gives (the others are injected).</summary>
        private IEnumerable<ParameterInfo> Arguments
        {
            get { return _params.Where(p => !Injected(p.ParameterType)); }
        }

        private string DefaultName()
        {
            string name = _method.Name;
            if (name.EndsWith("Async", StringComparison.Ordinal) && name.Length > 5) name = name.Substring(0, name.Length - 5);
            return JsonCodec.SnakeCase(name);
        }

        private string Description(string given)
        {
            return given ?? JsonSchema.DescriptionOf(_method);
        }

        private static void Put(Dictionary<string, object> o, string key, object value)
        {
            if (value != null) o[key] = value;
        }

        // ---- tools ------------------------------------------------------------------------------

        internal KeyValuePair<string, McpHandler> Tool(McpToolAttribute a)
        {
            var def = new Dictionary<string, object> { { "name", a.Name ?? DefaultName() } };
            Put(def, "title", a.Title);
            Put(def, "description", Description(a.Description));
            def["inputSchema"] = JsonSchema.Object(Arguments.Select(JsonSchema.Parameter), SchemaUse.Input);
            Put(def, "outputSchema", OutputSchema(a.UseStructuredContent));
            Dictionary<string, object> annotations = a.Annotations();
            if (annotations.Count > 0) def["annotations"] = annotations;
            if (a.TaskSupport != null) def["execution"] = new Dictionary<string, object> { { "taskSupport", a.TaskSupport } };
            McpHandler handler = async (json, ctx, ct) =>
            {
                Dictionary<string, object> args = JsonCodec.Object(json) ?? new Dictionary<string, object>();
                object value = await Invoke(p => Argument(args, p, false), ctx, ct).ConfigureAwait(false);
                return JsonCodec.Write(value); // the engine's rule makes it a CallToolResult
            };
            return new KeyValuePair<string, McpHandler>(JsonCodec.Write(def), handler);
        }

        /// <summary>
        /// The output schema the return type gives: a class, record or struct's own; a value that
        /// is no object wrapped as <c>{"result": value}</c> when asked (the engine wraps the value
        /// the same way); none for text, content blocks and whole results.
        /// </summary>
        private Dictionary<string, object> OutputSchema(bool structured)
        {
            if (_result == null) return null;
            Type t = Nullable.GetUnderlyingType(_result) ?? _result;
            Type item;
            if (t == typeof(string) || t == typeof(object) || t == typeof(RawJson) || typeof(McpObject).IsAssignableFrom(t)) return null;
            if (JsonCodec.IsSequence(t, out item) && typeof(McpObject).IsAssignableFrom(item)) return null;
            bool isObject = !JsonCodec.IsSequence(t, out item) && CallToolResult.ReadsObject(t) && !IsScalar(t);
            if (isObject && !JsonCodec.IsDictionary(t, out item)) return JsonSchema.Of(t, SchemaUse.Output);
            if (!structured) return null;
            if (isObject) return JsonSchema.Of(t, SchemaUse.Output);
            return new Dictionary<string, object>
            {
                { "type", "object" },
                { "properties", new Dictionary<string, object> { { "result", JsonSchema.Of(t, SchemaUse.Output) } } },
                { "required", new List<object> { "result" } },
            };
        }

        /// <summary>A type written as a JSON string (a date, a Guid...), though a struct or class.</summary>
        private static bool IsScalar(Type t)
        {
            return t == typeof(DateTime) || t == typeof(DateTimeOffset) || t == typeof(TimeSpan) || t == typeof(Guid) || t == typeof(Uri) ||
                   t == typeof(decimal) || t == typeof(char);
        }

        // ---- resources --------------------------------------------------------------------------

        internal KeyValuePair<string, McpHandler> Resource(McpResourceAttribute a)
        {
            if (string.IsNullOrEmpty(a.Uri)) throw new ArgumentException("a resource needs a URI");
            bool template = a.Uri.IndexOf('{') >= 0;
            var def = new Dictionary<string, object> { { template ? "uriTemplate" : "uri", a.Uri }, { "name", a.Name ?? DefaultName() } };
            Put(def, "title", a.Title);
            Put(def, "description", Description(a.Description));
            Put(def, "mimeType", a.MimeType);
            string mimeType = a.MimeType;
            McpHandler handler = async (json, ctx, ct) =>
            {
                Dictionary<string, object> read = JsonCodec.Object(json);
                string uri = MiniGet(read, "uri") as string;
                var variables = MiniGet(read, "variables") as Dictionary<string, object> ?? new Dictionary<string, object>();
                object value = await Invoke(p =>
                {
                    string key = Key(variables, p.Name);
                    if (key == null && string.Equals(p.Name, "uri", StringComparison.OrdinalIgnoreCase)) return JsonCodec.To(uri, p.ParameterType, p.Name);
                    return Argument(variables, p, true);
                }, ctx, ct).ConfigureAwait(false);
                return ResourceResult(value, uri, mimeType);
            };
            return new KeyValuePair<string, McpHandler>(JsonCodec.Write(def), handler);
        }

        private static string ResourceResult(object value, string uri, string mimeType)
        {
            var whole = value as ReadResourceResult;
            if (whole != null) return whole.Json;
            var contents = new List<ResourceContents>();
            var one = value as ResourceContents;
            var many = value as IEnumerable<ResourceContents>;
            var bytes = value as byte[];
            if (one != null) contents.Add(one);
            else if (many != null) contents.AddRange(many);
            else if (bytes != null) contents.Add(new BlobResourceContents(uri, bytes, mimeType ?? "application/octet-stream"));
            else if (value is string || value == null) contents.Add(new TextResourceContents(uri, (string)value ?? "", mimeType ?? "text/plain"));
            else contents.Add(new TextResourceContents(uri, JsonCodec.Write(value), mimeType ?? "application/json"));
            return new ReadResourceResult { Contents = contents }.Json;
        }

        // ---- prompts ----------------------------------------------------------------------------

        internal KeyValuePair<string, McpHandler> Prompt(McpPromptAttribute a)
        {
            var def = new Dictionary<string, object> { { "name", a.Name ?? DefaultName() } };
            Put(def, "title", a.Title);
            Put(def, "description", Description(a.Description));
            var arguments = new List<object>();
            foreach (ParameterInfo p in Arguments)
            {
                JsonSchema.Part part = JsonSchema.Parameter(p);
                var arg = new Dictionary<string, object> { { "name", part.Name } };
                Put(arg, "description", part.Description);
                arg["required"] = part.Required;
                arguments.Add(arg);
            }
            if (arguments.Count > 0) def["arguments"] = arguments;
            McpHandler handler = async (json, ctx, ct) =>
            {
                Dictionary<string, object> args = JsonCodec.Object(json) ?? new Dictionary<string, object>();
                object value = await Invoke(p => Argument(args, p, true), ctx, ct).ConfigureAwait(false);
                return PromptResult(value);
            };
            return new KeyValuePair<string, McpHandler>(JsonCodec.Write(def), handler);
        }

        private static string PromptResult(object value)
        {
            var whole = value as GetPromptResult;
            if (whole != null) return whole.Json;
            var messages = new List<PromptMessage>();
            var one = value as PromptMessage;
            var many = value as IEnumerable<PromptMessage>;
            var block = value as ContentBlock;
            if (one != null) messages.Add(one);
            else if (many != null) messages.AddRange(many);
            else if (block != null) messages.Add(new PromptMessage("user", block));
            else messages.Add(PromptMessage.User(value as string ?? (value == null ? "" : JsonCodec.Write(value))));
            return new GetPromptResult { Messages = messages }.Json;
        }

        // ---- calling ----------------------------------------------------------------------------

        private static object MiniGet(Dictionary<string, object> o, string key)
        {
            object v;
            return o != null && o.TryGetValue(key, out v) ? v : null;
        }

        private static string Key(Dictionary<string, object> o, string name)
        {
            if (o.ContainsKey(name)) return name;
            return o.Keys.FirstOrDefault(k => string.Equals(k, name, StringComparison.OrdinalIgnoreCase));
        }

        /// <summary>
        /// The value of the argument <paramref name="p"/> in <paramref name="args"/>, read as its
        /// type, or its default when absent. <paramref name="fromText"/>: the arguments are text
        /// (prompt arguments, URI variables), so a structured type is read from the JSON it holds.
        /// </summary>
        private static object Argument(Dictionary<string, object> args, ParameterInfo p, bool fromText)
        {
            string key = Key(args, p.Name);
            if (key == null) return JsonCodec.Default(p);
            object node = args[key];
            var text = node as string;
            Type t = Nullable.GetUnderlyingType(p.ParameterType) ?? p.ParameterType;
            if (fromText && text != null && t != typeof(string) && !t.IsEnum && !t.IsPrimitive && !IsScalar(t) && t != typeof(object))
                node = JsonCodec.Parse(text);
            return JsonCodec.To(node, p.ParameterType, p.Name);
        }

        /// <summary>Calls the method with its arguments read by <paramref name="argument"/> and what the server hands over; resolves to its value.</summary>
        private async Task<object> Invoke(Func<ParameterInfo, object> argument, McpRequestContext ctx, CancellationToken ct)
        {
            var args = new object[_params.Length];
            for (int i = 0; i < _params.Length; i++)
            {
                ParameterInfo p = _params[i];
                Type t = p.ParameterType;
                if (t == typeof(CancellationToken)) args[i] = ct;
                else if (t == typeof(McpRequestContext)) args[i] = ctx;
                else if (ProgressOf(t) != null) args[i] = Progress(ProgressOf(t), ctx);
                else
                {
                    try
                    {
                        args[i] = argument(p);
                    }
                    catch (ArgumentException e)
                    {
                        throw new ArgumentException("invalid arguments: " + e.Message, e);
                    }
                }
            }
            bool perCall = !_method.IsStatic && _target == null;
            object target = _method.IsStatic ? null : _target ?? Activator.CreateInstance(_type);
            try
            {
                object r;
                try
                {
                    r = _method.Invoke(target, args);
                }
                catch (TargetInvocationException e)
                {
                    ExceptionDispatchInfo.Capture(e.InnerException).Throw();
                    throw;
                }
                var task = r as Task;
                if (task == null && r != null && _method.ReturnType.FullName != null && _method.ReturnType.FullName.StartsWith("System.Threading.Tasks.ValueTask", StringComparison.Ordinal))
                    task = (Task)_method.ReturnType.GetMethod("AsTask").Invoke(r, null);
                if (task == null) return _result == null ? null : r;
                await task.ConfigureAwait(false);
                return _result == null ? null : typeof(Task<>).MakeGenericType(_result).GetProperty("Result").GetValue(task, null);
            }
            finally
            {
                var disposable = target as IDisposable;
                if (perCall && disposable != null) disposable.Dispose();
            }
        }

        private static object Progress(Type value, McpRequestContext ctx)
        {
            if (value == typeof(McpProgress)) return ctx.Progress;
            return Activator.CreateInstance(typeof(NumberProgress<>).MakeGenericType(value), ctx);
        }

        /// <summary>Progress reported as a number (the total unknown).</summary>
        private sealed class NumberProgress<T> : IProgress<T>
        {
            private readonly McpRequestContext _ctx;

            public NumberProgress(McpRequestContext ctx)
            {
                _ctx = ctx;
            }

            public void Report(T value)
            {
                _ctx.ReportProgress(Convert.ToDouble(value, Inv));
            }
        }
    }
}
