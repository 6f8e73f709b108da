// JSON for typed handlers and results without a JSON library (mono has no System.Text.Json):
// a reader to a small tree (Dictionary<string, object> in document order, List<object>,
// string, bool, long, double, null), a writer of any .NET value, and the conversion of a tree
// into a .NET type. The engine validates every argument against its schema first; this only
// maps values.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Reflection;
using System.Text;

namespace OxMcp
{
    /// <summary>JSON text kept as it is: written verbatim where a value goes.</summary>
    internal sealed class RawJson
    {
        internal readonly string Text;
        internal RawJson(string text) { Text = text; }
    }

    internal static class JsonCodec
    {
        private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

        // ---- reading ------------------------------------------------------------------------

        /// <summary>Parses one JSON value; throws FormatException when the text is not one.</summary>
        internal static object Parse(string text)
        {
            if (text == null) return null;
            int i = 0;
            object v = Value(text, ref i, 0);
            Space(text, ref i);
            if (i != text.Length) throw new FormatException("trailing text at " + i + " in JSON");
            return v;
        }

        /// <summary>Parses a JSON object (null for JSON null or null text).</summary>
        internal static Dictionary<string, object> Object(string text)
        {
            object v = Parse(text);
            if (v == null) return null;
            var o = v as Dictionary<string, object>;
            if (o == null) throw new FormatException("not a JSON object: " + text);
            return o;
        }

        private static void Space(string s, ref int i)
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
        }

        private static FormatException Bad(string s, int i)
        {
            return new FormatException("invalid JSON at " + i);
        }

        private static object Value(string s, ref int i, int depth)
        {
            Space(s, ref i);
            if (i >= s.Length || depth > 256) throw Bad(s, i);
            char c = s[i];
            switch (c)
            {
                case '{':
                {
                    var o = new Dictionary<string, object>();
                    i++;
                    Space(s, ref i);
                    if (i < s.Length && s[i] == '}') { i++; return o; }
                    for (;;)
                    {
                        Space(s, ref i);
                        string key = String(s, ref i);
                        Space(s, ref i);
                        if (i >= s.Length || s[i] != ':') throw Bad(s, i);
                        i++;
                        o[key] = Value(s, ref i, depth + 1);
                        Space(s, ref i);
                        if (i < s.Length && s[i] == ',') { i++; continue; }
                        if (i < s.Length && s[i] == '}') { i++; return o; }
                        throw Bad(s, i);
                    }
                }
                case '[':
                {
                    var a = new List<object>();
                    i++;
                    Space(s, ref i);
                    if (i < s.Length && s[i] == ']') { i++; return a; }
                    for (;;)
                    {
                        a.Add(Value(s, ref i, depth + 1));
                        Space(s, ref i);
                        if (i < s.Length && s[i] == ',') { i++; continue; }
                        if (i < s.Length && s[i] == ']') { i++; return a; }
                        throw Bad(s, i);
                    }
                }
                case '"':
                    return String(s, ref i);
                case 't':
                    return Word(s, ref i, "true", true);
                case 'f':
                    return Word(s, ref i, "false", false);
                case 'n':
                    return Word(s, ref i, "null", null);
                default:
                    return Number(s, ref i);
            }
        }

        private static object Word(string s, ref int i, string word, object value)
        {
            if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) throw Bad(s, i);
            i += word.Length;
            return value;
        }

        private static object Number(string s, ref int i)
        {
            int start = i;
            bool fraction = false;
            while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0)
            {
                if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') fraction = true;
                i++;
            }
            string text = s.Substring(start, i - start);
            long l;
            if (!fraction && long.TryParse(text, NumberStyles.AllowLeadingSign, Inv, out l)) return l;
            double d;
            if (double.TryParse(text, NumberStyles.Float, Inv, out d)) return d;
            throw Bad(s, start);
        }

        private static string String(string s, ref int i)
        {
            if (i >= s.Length || s[i] != '"') throw Bad(s, i);
            var b = new StringBuilder();
            i++;
            while (i < s.Length)
            {
                char c = s[i++];
                if (c == '"') return b.ToString();
                if (c != '\\')
                {
                    b.Append(c);
                    continue;
                }
                if (i >= s.Length) break;
                char e = s[i++];
                switch (e)
                {
                    case 'n': b.Append('\n'); break;
                    case 'r': b.Append('\r'); break;
                    case 't': b.Append('\t'); break;
                    case 'b': b.Append('\b'); break;
                    case 'f': b.Append('\f'); break;
                    case 'u':
                        if (i + 4 > s.Length) throw Bad(s, i);
                        b.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, Inv));
                        i += 4;
                        break;
                    default: b.Append(e); break; // \" \\ \/
                }
            }
            throw Bad(s, i);
        }

        // ---- writing ------------------------------------------------------------------------

        /// <summary>
        /// <paramref name="value"/> as JSON: strings, numbers, booleans, enums (by name),
        /// dates (ISO 8601), Guid, Uri, byte[] (base64), dictionaries as objects, other
        /// sequences as arrays, and any other object as an object of its public properties and
        /// fields (camelCase, or <c>[JsonPropertyName]</c>; null members left out).
        /// </summary>
        internal static string Write(object value)
        {
            var b = new StringBuilder();
            Write(b, value, 0);
            return b.ToString();
        }

        private static void Write(StringBuilder b, object value, int depth)
        {
            if (depth > 64) throw new ArgumentException("the value is nested too deep (a cycle?) to write as JSON");
            if (value == null) { b.Append("null"); return; }
            var raw = value as RawJson;
            if (raw != null) { b.Append(raw.Text); return; }
            var mcp = value as McpObject;
            if (mcp != null) { b.Append(mcp.Json); return; }
            var s = value as string;
            if (s != null) { b.Append(McpJson.Quote(s)); return; }
            if (value is bool) { b.Append((bool)value ? "true" : "false"); return; }
            Type t = value.GetType();
            if (t.IsEnum) { b.Append(McpJson.Quote(EnumName(t, value))); return; }
            if (value is char) { b.Append(McpJson.Quote(value.ToString())); return; }
            if (value is double || value is float)
            {
                double d = Convert.ToDouble(value, Inv);
                b.Append(double.IsNaN(d) || double.IsInfinity(d) ? "null" : d.ToString("R", Inv));
                return;
            }
            if (IsInteger(t) || value is decimal) { b.Append(Convert.ToString(value, Inv)); return; }
            if (value is DateTime) { b.Append(McpJson.Quote(((DateTime)value).ToString("o", Inv))); return; }
            if (value is DateTimeOffset) { b.Append(McpJson.Quote(((DateTimeOffset)value).ToString("o", Inv))); return; }
            if (value is TimeSpan) { b.Append(McpJson.Quote(((TimeSpan)value).ToString("c", Inv))); return; }
            if (value is Guid || value is Uri) { b.Append(McpJson.Quote(value.ToString())); return; }
            var bytes = value as byte[];
            if (bytes != null) { b.Append(McpJson.Quote(Convert.ToBase64String(bytes))); return; }
            var dict = value as IDictionary;
            if (dict != null)
            {
                b.Append('{');
                bool first = true;
                foreach (DictionaryEntry e in dict)
                {
                    if (!first) b.Append(',');
                    first = false;
                    object key = e.Key;
                    b.Append(McpJson.Quote(key != null && key.GetType().IsEnum ? EnumName(key.GetType(), key) : Convert.ToString(key, Inv)));
                    b.Append(':');
                    Write(b, e.Value, depth + 1);
                }
                b.Append('}');
                return;
            }
            var seq = value as IEnumerable;
            if (seq != null)
            {
                b.Append('[');
                bool first = true;
                foreach (object item in seq)
                {
                    if (!first) b.Append(',');
                    first = false;
                    Write(b, item, depth + 1);
                }
                b.Append(']');
                return;
            }
            b.Append('{');
            bool none = true;
            foreach (Member m in Members(t))
            {
                if (!m.CanRead) continue;
                object v = m.Get(value);
                if (v == null) continue;
                if (!none) b.Append(',');
                none = false;
                b.Append(McpJson.Quote(m.Name)).Append(':');
                Write(b, v, depth + 1);
            }
            b.Append('}');
        }

        internal static bool IsInteger(Type t)
        {
            return t == typeof(int) || t == typeof(long) || t == typeof(short) || t == typeof(byte) || t == typeof(sbyte) ||
                   t == typeof(uint) || t == typeof(ulong) || t == typeof(ushort);
        }

        internal static bool IsNumber(Type t)
        {
            return t == typeof(double) || t == typeof(float) || t == typeof(decimal);
        }

        /// <summary>An enum value's JSON name: <c>[EnumMember(Value)]</c> or <c>[JsonStringEnumMemberName]</c>, else its name.</summary>
        internal static string EnumName(Type t, object value)
        {
            string name = Enum.GetName(t, value);
            if (name == null) return Convert.ToString(Convert.ChangeType(value, Enum.GetUnderlyingType(t), Inv), Inv);
            FieldInfo f = t.GetField(name);
            return (f == null ? null : NamedAttributeText(f, "EnumMemberAttribute", "Value") ?? NamedAttributeText(f, "JsonStringEnumMemberNameAttribute", "Name")) ?? name;
        }

        internal static string[] EnumNames(Type t)
        {
            return Enum.GetValues(t).Cast<object>().Select(v => EnumName(t, v)).Distinct().ToArray();
        }

        // ---- members ------------------------------------------------------------------------

        /// <summary>A public property or field as JSON sees it.</summary>
        internal sealed class Member
        {
            internal string Name;       // the JSON name
            internal string ClrName;
            internal Type Type;
            internal MemberInfo Info;
            internal bool CanRead, CanWrite;

            internal object Get(object target)
            {
                var p = Info as PropertyInfo;
                return p != null ? p.GetValue(target, null) : ((FieldInfo)Info).GetValue(target);
            }

            internal void Set(object target, object value)
            {
                var p = Info as PropertyInfo;
                if (p != null) p.SetValue(target, value, null);
                else ((FieldInfo)Info).SetValue(target, value);
            }
        }

        private static readonly Dictionary<Type, Member[]> MemberCache = new Dictionary<Type, Member[]>();

        /// <summary>The public instance properties (no indexers) and fields of <paramref name="t"/>, minus <c>[JsonIgnore]</c>d ones.</summary>
        internal static Member[] Members(Type t)
        {
            lock (MemberCache)
            {
                Member[] cached;
                if (MemberCache.TryGetValue(t, out cached)) return cached;
            }
            var list = new List<Member>();
            foreach (PropertyInfo p in t.GetProperties(BindingFlags.Public | BindingFlags.Instance))
            {
                if (p.GetIndexParameters().Length > 0 || Ignored(p)) continue;
                MethodInfo get = p.GetGetMethod(), set = p.GetSetMethod();
                list.Add(new Member { Name = JsonName(p), ClrName = p.Name, Type = p.PropertyType, Info = p, CanRead = get != null, CanWrite = set != null });
            }
            foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
            {
                if (Ignored(f)) continue;
                list.Add(new Member { Name = JsonName(f), ClrName = f.Name, Type = f.FieldType, Info = f, CanRead = true, CanWrite = !f.IsInitOnly });
            }
            Member[] members = list.ToArray();
            lock (MemberCache) MemberCache[t] = members;
            return members;
        }

        private static bool Ignored(MemberInfo m)
        {
            return m.GetCustomAttributes(true).Any(a => a.GetType().Name == "JsonIgnoreAttribute");
        }

        private static string JsonName(MemberInfo m)
        {
            return NamedAttributeText(m, "JsonPropertyNameAttribute", "Name") ?? CamelCase(m.Name);
        }

        /// <summary>camelCase of a .NET name (<c>MimeType</c> → <c>mimeType</c>, <c>URL</c> → <c>url</c>).</summary>
        internal static string CamelCase(string name)
        {
            if (string.IsNullOrEmpty(name) || !char.IsUpper(name[0])) return name;
            char[] c = name.ToCharArray();
            for (int i = 0; i < c.Length && char.IsUpper(c[i]); i++)
            {
                if (i > 0 && i + 1 < c.Length && !char.IsUpper(c[i + 1])) break;
                c[i] = char.ToLowerInvariant(c[i]);
            }
            return new string(c);
        }

        /// <summary>snake_case of a .NET name (<c>SearchNotes</c> → <c>search_notes</c>, <c>GetURLAsync</c> → <c>get_url_async</c>).</summary>
        internal static string SnakeCase(string name)
        {
            var b = new StringBuilder();
            for (int i = 0; i < name.Length; i++)
            {
                char c = name[i];
                if (char.IsUpper(c))
                {
                    bool boundary = i > 0 && (char.IsLower(name[i - 1]) || char.IsDigit(name[i - 1]) ||
                                              (i + 1 < name.Length && char.IsLower(name[i + 1]) && char.IsUpper(name[i - 1])));
                    if (boundary && b.Length > 0 && b[b.Length - 1] != '_') b.Append('_');
                    b.Append(char.ToLowerInvariant(c));
                }
                else b.Append(c);
            }
            return b.ToString();
        }

        /// <summary>The text of a property of the first attribute whose type is named <paramref name="attribute"/> (any namespace), or null.</summary>
        internal static string NamedAttributeText(ICustomAttributeProvider m, string attribute, string property)
        {
            foreach (object a in m.GetCustomAttributes(true))
            {
                if (a.GetType().Name != attribute) continue;
                PropertyInfo p = a.GetType().GetProperty(property);
                var text = p == null ? null : p.GetValue(a, null) as string;
                if (text != null) return text;
            }
            return null;
        }

        internal static bool HasNamedAttribute(ICustomAttributeProvider m, params string[] names)
        {
            return m.GetCustomAttributes(true).Any(a => names.Contains(a.GetType().Name));
        }

        // ---- converting a tree into a .NET type --------------------------------------------------

        /// <summary>Reads JSON text as <paramref name="t"/>.</summary>
        internal static object Read(string text, Type t)
        {
            return To(Parse(text), t, "");
        }

        /// <summary>
        /// <paramref name="node"/> (a parsed tree) as <paramref name="t"/>; throws
        /// ArgumentException naming the path of what does not fit.
        /// </summary>
        internal static object To(object node, Type t, string path)
        {
            try
            {
                return FromNode(node, t, path);
            }
            catch (ArgumentException)
            {
                throw;
            }
            catch (Exception e) when (e is FormatException || e is InvalidCastException || e is OverflowException)
            {
                throw new ArgumentException((path.Length == 0 ? "" : path + ": ") + e.Message, e);
            }
        }

        private static ArgumentException Mismatch(object node, Type t, string path)
        {
            string what = node == null ? "null" : node is string ? "a string" : node is bool ? "a boolean" : node is long || node is double ? "a number" :
                          node is List<object> ? "an array" : "an object";
            return new ArgumentException((path.Length == 0 ? "" : path + ": ") + what + " is not " + TypeName(t));
        }

        internal static string TypeName(Type t)
        {
            if (!t.IsGenericType) return t.Name;
            string name = t.Name.Substring(0, t.Name.IndexOf('`'));
            return name + "<" + string.Join(", ", t.GetGenericArguments().Select(TypeName)) + ">";
        }

        private static object FromNode(object node, Type t, string path)
        {
            if (t == typeof(object)) return node;
            if (t == typeof(RawJson)) return new RawJson(Write(node));
            Type underlying = Nullable.GetUnderlyingType(t);
            if (underlying != null) return node == null ? null : FromNode(node, underlying, path);
            if (node == null)
            {
                if (t.IsValueType) throw Mismatch(node, t, path);
                return null;
            }
            if (t == typeof(string))
            {
                if (node is string) return node;
                if (node is long || node is double || node is bool) return Write(node);
                throw Mismatch(node, t, path);
            }
            if (t == typeof(bool))
            {
                if (node is bool) return node;
                var s = node as string;
                if (s != null) return bool.Parse(s);
                throw Mismatch(node, t, path);
            }
            if (IsInteger(t) || IsNumber(t))
            {
                var s = node as string; // prompt arguments and URI variables are strings
                if (s != null) return System.Convert.ChangeType(decimal.Parse(s, NumberStyles.Float, Inv), t, Inv);
                if (node is long || node is double)
                {
                    if (IsInteger(t) && node is double && Math.Floor((double)node) != (double)node) throw Mismatch(node, t, path);
                    return System.Convert.ChangeType(node, t, Inv);
                }
                throw Mismatch(node, t, path);
            }
            if (t.IsEnum)
            {
                var s = node as string;
                if (s != null)
                {
                    foreach (object v in Enum.GetValues(t))
                        if (string.Equals(EnumName(t, v), s, StringComparison.Ordinal)) return v;
                    foreach (object v in Enum.GetValues(t))
                        if (string.Equals(EnumName(t, v), s, StringComparison.OrdinalIgnoreCase) || string.Equals(v.ToString(), s, StringComparison.OrdinalIgnoreCase)) return v;
                    throw new ArgumentException((path.Length == 0 ? "" : path + ": ") + McpJson.Quote(s) + " is not one of " + string.Join(", ", EnumNames(t)));
                }
                if (node is long) return Enum.ToObject(t, (long)node);
                throw Mismatch(node, t, path);
            }
            if (t == typeof(char))
            {
                var s = node as string;
                if (s != null && s.Length == 1) return s[0];
                throw Mismatch(node, t, path);
            }
            if (t == typeof(DateTime)) return DateTime.Parse(Str(node, t, path), Inv, DateTimeStyles.RoundtripKind);
            if (t == typeof(DateTimeOffset)) return DateTimeOffset.Parse(Str(node, t, path), Inv, DateTimeStyles.RoundtripKind);
            if (t == typeof(TimeSpan)) return TimeSpan.Parse(Str(node, t, path), Inv);
            if (t == typeof(Guid)) return Guid.Parse(Str(node, t, path));
            if (t == typeof(Uri)) return new Uri(Str(node, t, path), UriKind.RelativeOrAbsolute);
            if (t == typeof(byte[])) return System.Convert.FromBase64String(Str(node, t, path));

            Type valueType;
            if (IsDictionary(t, out valueType))
            {
                var o = node as Dictionary<string, object>;
                if (o == null) throw Mismatch(node, t, path);
                Type keyType = t.IsGenericType ? t.GetGenericArguments()[0] : typeof(string);
                var made = (IDictionary)Activator.CreateInstance(t.IsInterface ? typeof(Dictionary<,>).MakeGenericType(keyType, valueType) : t);
                foreach (var kv in o)
                    made[keyType == typeof(string) ? kv.Key : FromNode(kv.Key, keyType, path)] = FromNode(kv.Value, valueType, Join(path, kv.Key));
                return made;
            }
            Type item;
            if (IsSequence(t, out item))
            {
                var a = node as List<object>;
                if (a == null) throw Mismatch(node, t, path);
                var items = Array.CreateInstance(item, a.Count);
                for (int i = 0; i < a.Count; i++) items.SetValue(FromNode(a[i], item, path + "[" + i + "]"), i);
                if (t.IsArray) return items;
                Type list = typeof(List<>).MakeGenericType(item);
                if (t.IsAssignableFrom(list)) return Activator.CreateInstance(list, items);
                object made = Activator.CreateInstance(t);
                MethodInfo add = t.GetMethod("Add", new[] { item });
                if (add == null) throw new ArgumentException(path + ": " + TypeName(t) + " has no Add(" + TypeName(item) + ")");
                foreach (object x in items) add.Invoke(made, new[] { x });
                return made;
            }
            var obj = node as Dictionary<string, object>;
            if (obj == null) throw Mismatch(node, t, path);
            return Build(obj, t, path);
        }

        private static string Str(object node, Type t, string path)
        {
            var s = node as string;
            if (s == null) throw Mismatch(node, t, path);
            return s;
        }

        internal static string Join(string path, string key)
        {
            return path.Length == 0 ? key : path + "." + key;
        }

        /// <summary>A dictionary type with string (or enum) keys, and its value type.</summary>
        internal static bool IsDictionary(Type t, out Type valueType)
        {
            valueType = null;
            foreach (Type i in new[] { t }.Concat(t.GetInterfaces()))
            {
                if (!i.IsGenericType) continue;
                Type def = i.GetGenericTypeDefinition();
                if (def == typeof(IDictionary<,>) || def == typeof(IReadOnlyDictionary<,>) || def == typeof(Dictionary<,>))
                {
                    Type[] args = i.GetGenericArguments();
                    if (args[0] != typeof(string) && !args[0].IsEnum) return false;
                    valueType = args[1];
                    return true;
                }
            }
            return false;
        }

        /// <summary>An array or a generic collection (not a string, not a dictionary), and its item type.</summary>
        internal static bool IsSequence(Type t, out Type item)
        {
            item = null;
            if (t == typeof(string)) return false;
            if (t.IsArray)
            {
                item = t.GetElementType();
                return t.GetArrayRank() == 1;
            }
            foreach (Type i in new[] { t }.Concat(t.GetInterfaces()))
            {
                if (i.IsGenericType && i.GetGenericTypeDefinition() == typeof(IEnumerable<>))
                {
                    item = i.GetGenericArguments()[0];
                    return true;
                }
            }
            return false;
        }

        /// <summary>
        /// How a class or struct is built: its public parameterless constructor then its settable
        /// members, or (a record, an immutable class) its public constructor with the most
        /// parameters, bound by name, then the settable members it did not take.
        /// </summary>
        internal static ConstructorInfo Constructor(Type t)
        {
            ConstructorInfo[] all = t.GetConstructors(BindingFlags.Public | BindingFlags.Instance);
            if (t.IsValueType || all.Any(c => c.GetParameters().Length == 0)) return null;
            ConstructorInfo best = all.Where(c => !(c.GetParameters().Length == 1 && c.GetParameters()[0].ParameterType == t))
                                      .OrderByDescending(c => c.GetParameters().Length).FirstOrDefault();
            if (best == null) throw new ArgumentException(TypeName(t) + " has no public constructor to read it with");
            return best;
        }

        private static object Build(Dictionary<string, object> o, Type t, string path)
        {
            if (t.IsAbstract || t.IsInterface) throw new ArgumentException((path.Length == 0 ? "" : path + ": ") + "cannot read the abstract " + TypeName(t));
            Member[] members = Members(t);
            var used = new HashSet<string>();
            object made;
            ConstructorInfo ctor = Constructor(t);
            if (ctor == null) made = Activator.CreateInstance(t);
            else
            {
                ParameterInfo[] ps = ctor.GetParameters();
                var args = new object[ps.Length];
                for (int i = 0; i < ps.Length; i++)
                {
                    ParameterInfo p = ps[i];
                    Member m = members.FirstOrDefault(x => string.Equals(x.ClrName, p.Name, StringComparison.OrdinalIgnoreCase));
                    string key = Key(o, m != null ? m.Name : p.Name) ?? Key(o, p.Name);
                    if (key != null)
                    {
                        args[i] = FromNode(o[key], p.ParameterType, Join(path, key));
                        used.Add(key);
                    }
                    else args[i] = Default(p);
                }
                made = ctor.Invoke(args);
            }
            foreach (Member m in members)
            {
                string key = Key(o, m.Name);
                if (key == null || used.Contains(key) || !m.CanWrite) continue;
                m.Set(made, FromNode(o[key], m.Type, Join(path, key)));
            }
            return made;
        }

        /// <summary>The key of <paramref name="o"/> that is <paramref name="name"/>, exactly or else ignoring case.</summary>
        private static string Key(Dictionary<string, object> o, string name)
        {
            if (o.ContainsKey(name)) return name;
            foreach (string k in o.Keys)
                if (string.Equals(k, name, StringComparison.OrdinalIgnoreCase)) return k;
            return null;
        }

        /// <summary>A parameter's default: the one declared, else the type's.</summary>
        internal static object Default(ParameterInfo p)
        {
            if (p.HasDefaultValue && p.DefaultValue != null && !(p.DefaultValue is DBNull) && !(p.DefaultValue is Missing))
            {
                Type t = Nullable.GetUnderlyingType(p.ParameterType) ?? p.ParameterType;
                return t.IsEnum ? Enum.ToObject(t, p.DefaultValue) : p.DefaultValue;
            }
            return p.ParameterType.IsValueType && Nullable.GetUnderlyingType(p.ParameterType) == null ? Activator.CreateInstance(p.ParameterType) : null;
        }
    }
}
