// JSON Schemas derived from .NET types, for tool input and output schemas and elicitation
// forms. The engine checks every schema it is given and validates against it; this only
// describes what Json.cs reads and writes.
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Linq;
using System.Reflection;

namespace OxMcp
{
    /// <summary>What a derived schema describes.</summary>
    internal enum SchemaUse
    {
        /// <summary>Arguments read into a type: a nullable type also takes null; constructor
        /// parameters without a default and <c>[Required]</c> members are required.</summary>
        Input,
        /// <summary>A value written from a type (null members are left out): members that are
        /// never null (value types, non-nullable references) are required.</summary>
        Output,
        /// <summary>An elicitation form: as <see cref="Output"/>, and what
        /// <see cref="Input"/> requires is required too; no null types.</summary>
        Form,
    }

    internal static class JsonSchema
    {
        /// <summary>The schema of <paramref name="t"/>; a type no schema describes (a recursive one) throws ArgumentException naming it.</summary>
        internal static Dictionary<string, object> Of(Type t, SchemaUse use)
        {
            return Describe(t, use, new Stack<Type>());
        }

        /// <summary>
        /// An object schema of named parts (a method's parameters): each part's type, description,
        /// default and whether it is required.
        /// </summary>
        internal static Dictionary<string, object> Object(IEnumerable<Part> parts, SchemaUse use, string description = null)
        {
            return Object(parts, use, description, new Stack<Type>());
        }

        /// <summary>One property of an object schema.</summary>
        internal sealed class Part
        {
            internal string Name;
            internal Type Type;
            internal bool Required;
            /// <summary>Whether null is a value of it (a Nullable&lt;T&gt;, a <c>string?</c>).</summary>
            internal bool Nullable;
            internal string Description;
            internal bool HasDefault;
            internal object Default;
        }

        /// <summary>A method parameter as a part: required unless it has a default or takes null.</summary>
        internal static Part Parameter(ParameterInfo p)
        {
            bool nullable = TakesNull(p.ParameterType, p, p.Member);
            bool hasDefault = p.HasDefaultValue || p.IsOptional;
            return new Part
            {
                Name = p.Name,
                Type = p.ParameterType,
                Nullable = nullable,
                Required = !hasDefault && !nullable,
                Description = DescriptionOf(p),
                HasDefault = hasDefault && p.HasDefaultValue && p.DefaultValue != null && !(p.DefaultValue is DBNull),
                Default = hasDefault && p.HasDefaultValue ? JsonCodec.Default(p) : null,
            };
        }

        private static Dictionary<string, object> Property(Part p, SchemaUse use, Stack<Type> outer)
        {
            Dictionary<string, object> s = Describe(p.Type, use, outer);
            if (use == SchemaUse.Input && p.Nullable)
            {
                object type;
                if (s.TryGetValue("type", out type) && type is string) s["type"] = new List<object> { type, "null" };
            }
            if (p.Description != null) s["description"] = p.Description;
            if (p.HasDefault && p.Default != null) s["default"] = p.Default;
            return s;
        }

        internal static string DescriptionOf(ICustomAttributeProvider m)
        {
            var d = m.GetCustomAttributes(typeof(DescriptionAttribute), true).OfType<DescriptionAttribute>().FirstOrDefault();
            return d == null || string.IsNullOrEmpty(d.Description) ? null : d.Description;
        }

        private static Dictionary<string, object> Type(string name)
        {
            return new Dictionary<string, object> { { "type", name } };
        }

        private static Dictionary<string, object> Describe(Type t, SchemaUse use, Stack<Type> outer)
        {
            Type underlying = System.Nullable.GetUnderlyingType(t);
            if (underlying != null) return Describe(underlying, use, outer);
            if (t == typeof(object) || t == typeof(RawJson)) return new Dictionary<string, object>();
            if (t == typeof(string) || t == typeof(char) || t == typeof(TimeSpan)) return Type("string");
            if (t == typeof(bool)) return Type("boolean");
            if (JsonCodec.IsInteger(t)) return Type("integer");
            if (JsonCodec.IsNumber(t)) return Type("number");
            if (t == typeof(DateTime) || t == typeof(DateTimeOffset)) return Format("date-time");
            if (t == typeof(Guid)) return Format("uuid");
            if (t == typeof(Uri)) return Format("uri");
            if (t == typeof(byte[]))
            {
                var b = Type("string");
                b["contentEncoding"] = "base64";
                return b;
            }
            if (t.IsEnum)
            {
                var e = Type("string");
                e["enum"] = JsonCodec.EnumNames(t).Cast<object>().ToList();
                return e;
            }
            Type item;
            if (JsonCodec.IsDictionary(t, out item))
            {
                var d = Type("object");
                d["additionalProperties"] = Describe(item, use, outer);
                return d;
            }
            if (JsonCodec.IsSequence(t, out item))
            {
                var a = Type("array");
                a["items"] = Describe(item, use, outer);
                return a;
            }
            if (t.IsPrimitive || t.IsPointer || t.IsAbstract || t.IsInterface || typeof(Delegate).IsAssignableFrom(t) || t.ContainsGenericParameters)
                throw new ArgumentException(JsonCodec.TypeName(t) + " is not a type a JSON Schema describes (use a class, a record or a struct of JSON values)");
            if (outer.Contains(t))
                throw new ArgumentException(JsonCodec.TypeName(t) + " refers to itself: a derived schema cannot describe a recursive type");
            outer.Push(t);
            try
            {
                return Object(Parts(t, use), use, DescriptionOf(t), outer);
            }
            finally
            {
                outer.Pop();
            }
        }

        private static Dictionary<string, object> Object(IEnumerable<Part> parts, SchemaUse use, string description, Stack<Type> outer)
        {
            var properties = new Dictionary<string, object>();
            var required = new List<object>();
            foreach (Part p in parts)
            {
                properties[p.Name] = Property(p, use, outer);
                if (p.Required) required.Add(p.Name);
            }
            var o = Type("object");
            if (description != null) o["description"] = description;
            o["properties"] = properties;
            if (required.Count > 0) o["required"] = required;
            return o;
        }

        private static Dictionary<string, object> Format(string format)
        {
            var s = Type("string");
            s["format"] = format;
            return s;
        }

        /// <summary>The members of a class, record or struct as Json.cs reads (Input) or writes (Output, Form) them.</summary>
        private static IEnumerable<Part> Parts(Type t, SchemaUse use)
        {
            JsonCodec.Member[] members = JsonCodec.Members(t);
            ConstructorInfo ctor = use == SchemaUse.Output ? null : JsonCodec.Constructor(t);
            ParameterInfo[] ps = ctor == null ? new ParameterInfo[0] : ctor.GetParameters();
            var parts = new List<Part>();
            foreach (JsonCodec.Member m in members)
            {
                ParameterInfo p = ps.FirstOrDefault(x => string.Equals(x.Name, m.ClrName, StringComparison.OrdinalIgnoreCase));
                if (use != SchemaUse.Output && p == null && !m.CanWrite) continue; // not read
                if (use == SchemaUse.Output && !m.CanRead) continue;
                bool nullable = TakesNull(m.Type, m.Info, t);
                bool marked = JsonCodec.HasNamedAttribute(m.Info, "RequiredAttribute", "JsonRequiredAttribute", "RequiredMemberAttribute");
                bool byCtor = p != null && !p.HasDefaultValue && !p.IsOptional && !TakesNull(p.ParameterType, p, ctor);
                bool neverNull = !nullable && (m.Type.IsValueType || NullState(m.Info, t) == 1);
                string description = DescriptionOf(m.Info) ?? (p == null ? null : DescriptionOf(p));
                object dflt = p != null && p.HasDefaultValue ? JsonCodec.Default(p) : DefaultOf(m.Info);
                parts.Add(new Part
                {
                    Name = m.Name,
                    Type = m.Type,
                    Nullable = nullable,
                    Required = use == SchemaUse.Input ? byCtor || marked : use == SchemaUse.Output ? neverNull || marked : neverNull || marked || byCtor,
                    Description = description,
                    HasDefault = dflt != null,
                    Default = dflt,
                });
            }
            return parts;
        }

        private static object DefaultOf(MemberInfo m)
        {
            var d = m.GetCustomAttributes(typeof(DefaultValueAttribute), true).OfType<DefaultValueAttribute>().FirstOrDefault();
            return d == null ? null : d.Value;
        }

        /// <summary>Whether a value of <paramref name="t"/>, declared at <paramref name="target"/>, may be null: a Nullable&lt;T&gt;, or a reference annotated nullable (<c>string?</c>).</summary>
        internal static bool TakesNull(Type t, ICustomAttributeProvider target, MemberInfo context)
        {
            if (System.Nullable.GetUnderlyingType(t) != null) return true;
            return !t.IsValueType && NullState(target, context) == 2;
        }

        /// <summary>
        /// The C# 8 nullable annotation of a reference at <paramref name="target"/>: 1 not null,
        /// 2 nullable, 0 oblivious (code without annotations), read from the compiler's
        /// <c>NullableAttribute</c>, else the nearest <c>NullableContextAttribute</c>.
        /// </summary>
        internal static int NullState(ICustomAttributeProvider target, MemberInfo context)
        {
            foreach (object a in target.GetCustomAttributes(false))
            {
                if (a.GetType().Name != "NullableAttribute") continue;
                var flags = a.GetType().GetField("NullableFlags");
                var bytes = flags == null ? null : flags.GetValue(a) as byte[];
                if (bytes != null && bytes.Length > 0) return bytes[0];
            }
            for (MemberInfo m = context; m != null; m = m.DeclaringType)
            {
                foreach (object a in m.GetCustomAttributes(false))
                {
                    if (a.GetType().Name != "NullableContextAttribute") continue;
                    var flag = a.GetType().GetField("Flag");
                    if (flag != null) return (byte)flag.GetValue(a);
                }
            }
            return 0;
        }
    }
}
