// A small JSON reader and writer for the scenario suite (mono's mcs profile here has no
// System.Runtime.Serialization or System.Web.Extensions): objects are
// Dictionary<string, object> (keys in document order), arrays List<object>, numbers double,
// plus string, bool and null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using OxMcp;

internal static class MiniJson
{
    /// <summary>Parses one JSON value; throws FormatException when the text is not one.</summary>
    internal static object Parse(string text)
    {
        int i = 0;
        object v = Value(text, ref i, 0);
        Ws(text, ref i);
        if (i != text.Length) throw new FormatException("trailing text at " + i);
        return v;
    }

    private static void Ws(string s, ref int i)
    {
        while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    }

    private static FormatException Bad(int i) { return new FormatException("invalid JSON at " + i); }

    private static object Value(string s, ref int i, int depth)
    {
        Ws(s, ref i);
        if (i >= s.Length || depth > 200) throw Bad(i);
        char c = s[i];
        if (c == '{')
        {
            var obj = new Dictionary<string, object>();
            i++;
            Ws(s, ref i);
            if (i < s.Length && s[i] == '}') { i++; return obj; }
            for (;;)
            {
                Ws(s, ref i);
                string key = ReadString(s, ref i);
                Ws(s, ref i);
                if (i >= s.Length || s[i] != ':') throw Bad(i);
                i++;
                obj[key] = Value(s, ref i, depth + 1);
                Ws(s, ref i);
                if (i < s.Length && s[i] == ',') { i++; continue; }
                if (i < s.Length && s[i] == '}') { i++; return obj; }
                throw Bad(i);
            }
        }
        if (c == '[')
        {
            var arr = new List<object>();
            i++;
            Ws(s, ref i);
            if (i < s.Length && s[i] == ']') { i++; return arr; }
            for (;;)
            {
                arr.Add(Value(s, ref i, depth + 1));
                Ws(s, ref i);
                if (i < s.Length && s[i] == ',') { i++; continue; }
                if (i < s.Length && s[i] == ']') { i++; return arr; }
                throw Bad(i);
            }
        }
        if (c == '"') return ReadString(s, ref i);
        if (string.CompareOrdinal(s, i, "true", 0, 4) == 0) { i += 4; return true; }
        if (string.CompareOrdinal(s, i, "false", 0, 5) == 0) { i += 5; return false; }
        if (string.CompareOrdinal(s, i, "null", 0, 4) == 0) { i += 4; return null; }
        int start = i;
        while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
        double d;
        if (i == start || !double.TryParse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture, out d)) throw Bad(start);
        return d;
    }

    private static string ReadString(string s, ref int i)
    {
        if (i >= s.Length || s[i] != '"') throw Bad(i);
        i++;
        var b = new StringBuilder();
        while (i < s.Length && s[i] != '"')
        {
            char c = s[i++];
            if (c != '\\') { b.Append(c); continue; }
            if (i >= s.Length) throw Bad(i);
            c = s[i++];
            switch (c)
            {
                case '"': b.Append('"'); break;
                case '\\': b.Append('\\'); break;
                case '/': b.Append('/'); break;
                case 'b': b.Append('\b'); break;
                case 'f': b.Append('\f'); break;
                case 'n': b.Append('\n'); break;
                case 'r': b.Append('\r'); break;
                case 't': b.Append('\t'); break;
                case 'u':
                    if (i + 4 > s.Length) throw Bad(i);
                    b.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                    i += 4;
                    break;
                default: throw Bad(i);
            }
        }
        if (i >= s.Length) throw Bad(i);
        i++;
        return b.ToString();
    }

    /// <summary>Compact JSON text of a value made of the types Parse returns.</summary>
    internal static string Write(object v)
    {
        var b = new StringBuilder();
        Write(b, v);
        return b.ToString();
    }

    private static void Write(StringBuilder b, object v)
    {
        if (v == null) { b.Append("null"); return; }
        if (v is bool) { b.Append((bool)v ? "true" : "false"); return; }
        if (v is double)
        {
            double d = (double)v;
            b.Append(d == Math.Floor(d) && Math.Abs(d) < 9e15 ? ((long)d).ToString(CultureInfo.InvariantCulture) : d.ToString("R", CultureInfo.InvariantCulture));
            return;
        }
        var s = v as string;
        if (s != null) { b.Append(McpJson.Quote(s)); return; }
        var obj = v as Dictionary<string, object>;
        if (obj != null)
        {
            b.Append('{');
            bool first = true;
            foreach (var kv in obj)
            {
                if (!first) b.Append(',');
                first = false;
                b.Append(McpJson.Quote(kv.Key)).Append(':');
                Write(b, kv.Value);
            }
            b.Append('}');
            return;
        }
        var arr = v as List<object>;
        if (arr != null)
        {
            b.Append('[');
            for (int i = 0; i < arr.Count; i++)
            {
                if (i > 0) b.Append(',');
                Write(b, arr[i]);
            }
            b.Append(']');
            return;
        }
        throw new ArgumentException("not a JSON value: " + v.GetType());
    }

    /// <summary>obj[key], or null (also when obj is no object).</summary>
    internal static object Get(object obj, string key)
    {
        var d = obj as Dictionary<string, object>;
        object v;
        return d != null && d.TryGetValue(key, out v) ? v : null;
    }

    /// <summary>obj[key] as a string, or null.</summary>
    internal static string Str(object obj, string key)
    {
        return Get(obj, key) as string;
    }

    /// <summary>Whether a dotted path ("completion.values.0": numbers index arrays) leads to a value, and which.</summary>
    internal static bool TryPath(object v, string path, out object found)
    {
        found = v;
        foreach (string seg in path.Split('.'))
        {
            var arr = found as List<object>;
            var obj = found as Dictionary<string, object>;
            int idx;
            if (arr != null && int.TryParse(seg, NumberStyles.None, CultureInfo.InvariantCulture, out idx) && idx < arr.Count) found = arr[idx];
            else if (obj != null && obj.TryGetValue(seg, out found)) { }
            else { found = null; return false; }
        }
        return true;
    }

    /// <summary>Deep equality (objects: the same keys with equal values, in any order).</summary>
    internal static bool Equal(object a, object b)
    {
        if (a == null || b == null) return a == null && b == null;
        if (a is double && b is double) return (double)a == (double)b;
        if (a is bool && b is bool) return (bool)a == (bool)b;
        if (a is string && b is string) return (string)a == (string)b;
        var la = a as List<object>;
        var lb = b as List<object>;
        if (la != null && lb != null) return la.Count == lb.Count && la.Zip(lb, Equal).All(x => x);
        var da = a as Dictionary<string, object>;
        var db = b as Dictionary<string, object>;
        if (da != null && db != null)
        {
            if (da.Count != db.Count) return false;
            foreach (var kv in da)
            {
                object other;
                if (!db.TryGetValue(kv.Key, out other) || !Equal(kv.Value, other)) return false;
            }
            return true;
        }
        return false;
    }
}
