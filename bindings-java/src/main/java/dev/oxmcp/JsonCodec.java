package dev.oxmcp;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * JSON for typed handlers and results without a JSON library: a reader to a small tree
 * ({@code Map<String, Object>} in document order, {@code List<Object>}, {@code String},
 * {@code Boolean}, {@code BigDecimal}, {@code null}), a writer of Java values (records, maps,
 * collections, arrays, enums, {@code Optional}, strings, numbers, booleans), and the conversion
 * of a tree into a Java type. The engine validates every argument against its schema first;
 * this only maps values.
 */
final class JsonCodec {
    private static final int MAX_DEPTH = 256;

    private JsonCodec() {}

    // ---- reading ---------------------------------------------------------------------------

    /** Parses one JSON value; throws IllegalArgumentException when the text is not one. */
    static Object parse(String text) {
        if (text == null) {
            return null;
        }
        int[] at = {0};
        Object v = value(text, at, 0);
        at[0] = space(text, at[0]);
        if (at[0] != text.length()) {
            throw new IllegalArgumentException("trailing text at " + at[0] + " in JSON");
        }
        return v;
    }

    private static int space(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) {
            i++;
        }
        return i;
    }

    private static IllegalArgumentException bad(int i) {
        return new IllegalArgumentException("invalid JSON at " + i);
    }

    private static Object value(String s, int[] at, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("JSON nested deeper than " + MAX_DEPTH);
        }
        int i = space(s, at[0]);
        if (i >= s.length()) {
            throw bad(i);
        }
        char c = s.charAt(i);
        if (c == '{') {
            Map<String, Object> o = new LinkedHashMap<>();
            i = space(s, i + 1);
            if (i < s.length() && s.charAt(i) == '}') {
                at[0] = i + 1;
                return o;
            }
            while (true) {
                i = space(s, i);
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw bad(i);
                }
                at[0] = i;
                String key = string(s, at);
                i = space(s, at[0]);
                if (i >= s.length() || s.charAt(i) != ':') {
                    throw bad(i);
                }
                at[0] = i + 1;
                o.put(key, value(s, at, depth + 1));
                i = space(s, at[0]);
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                } else if (i < s.length() && s.charAt(i) == '}') {
                    at[0] = i + 1;
                    return o;
                } else {
                    throw bad(i);
                }
            }
        }
        if (c == '[') {
            List<Object> a = new ArrayList<>();
            i = space(s, i + 1);
            if (i < s.length() && s.charAt(i) == ']') {
                at[0] = i + 1;
                return a;
            }
            while (true) {
                at[0] = i;
                a.add(value(s, at, depth + 1));
                i = space(s, at[0]);
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                } else if (i < s.length() && s.charAt(i) == ']') {
                    at[0] = i + 1;
                    return a;
                } else {
                    throw bad(i);
                }
            }
        }
        if (c == '"') {
            at[0] = i;
            return string(s, at);
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (s.startsWith(word, i)) {
                at[0] = i + word.length();
                return word.equals("null") ? null : Boolean.valueOf(word.equals("true"));
            }
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        if (i == start) {
            throw bad(i);
        }
        try {
            BigDecimal n = new BigDecimal(s.substring(start, i));
            at[0] = i;
            return n;
        } catch (NumberFormatException e) {
            throw bad(start);
        }
    }

    private static String string(String s, int[] at) {
        StringBuilder b = new StringBuilder();
        int i = at[0] + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"') {
                at[0] = i + 1;
                return b.toString();
            }
            if (c == '\\') {
                if (i + 1 >= s.length()) {
                    throw bad(i);
                }
                char e = s.charAt(i + 1);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (i + 6 > s.length()) {
                            throw bad(i);
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
                        } catch (NumberFormatException x) {
                            throw bad(i);
                        }
                        i += 4;
                    }
                    default -> throw bad(i);
                }
                i += 2;
            } else {
                b.append(c);
                i++;
            }
        }
        throw bad(i);
    }

    // ---- writing ---------------------------------------------------------------------------

    /** A Java value as JSON text. A type with no JSON form throws IllegalArgumentException. */
    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value, 0);
        return b.toString();
    }

    private static void write(StringBuilder b, Object v, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("a value nested deeper than " + MAX_DEPTH + " (a cycle?)");
        }
        if (v == null) {
            b.append("null");
        } else if (v instanceof RawJson raw) {
            b.append(raw.text());
        } else if (v instanceof CharSequence || v instanceof Character) {
            b.append(Json.quote(v.toString()));
        } else if (v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Double d && (d.isNaN() || d.isInfinite()) || v instanceof Float f && (f.isNaN() || f.isInfinite())) {
            b.append("null");
        } else if (v instanceof BigDecimal d) {
            b.append(d.toPlainString());
        } else if (v instanceof Number) {
            b.append(v);
        } else if (v instanceof Enum<?> e) {
            b.append(Json.quote(e.name()));
        } else if (v instanceof Optional<?> o) {
            write(b, o.orElse(null), depth + 1);
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(Json.quote(String.valueOf(e.getKey()))).append(':');
                write(b, e.getValue(), depth + 1);
            }
            b.append('}');
        } else if (v instanceof Collection<?> c) {
            b.append('[');
            boolean first = true;
            for (Object item : c) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(b, item, depth + 1);
            }
            b.append(']');
        } else if (v.getClass().isArray()) {
            b.append('[');
            for (int i = 0, n = Array.getLength(v); i < n; i++) {
                if (i > 0) {
                    b.append(',');
                }
                write(b, Array.get(v, i), depth + 1);
            }
            b.append(']');
        } else if (v.getClass().isRecord()) {
            b.append('{');
            boolean first = true;
            for (RecordComponent c : v.getClass().getRecordComponents()) {
                Object item = read(c, v);
                if (item == null || item instanceof Optional<?> o && o.isEmpty()) {
                    continue; // absent, as an optional member is
                }
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(Json.quote(c.getName())).append(':');
                write(b, item, depth + 1);
            }
            b.append('}');
        } else {
            throw new IllegalArgumentException(v.getClass().getName() + " has no JSON form (use a record, a map, a list, a string, a number or a boolean)");
        }
    }

    private static Object read(RecordComponent c, Object record) {
        try {
            c.getAccessor().setAccessible(true);
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot read " + c.getName() + " of " + record.getClass().getName(), e);
        }
    }

    // ---- converting ------------------------------------------------------------------------

    /** A parsed value as a {@code type}; {@code path} names it in errors. */
    static Object convert(Object v, Type type, String path) {
        Class<?> raw = rawClass(type);
        if (raw == Optional.class) {
            return v == null ? Optional.empty() : Optional.of(convert(v, typeArgument(type, 0), path));
        }
        if (v == null) {
            if (raw.isPrimitive()) {
                throw new IllegalArgumentException(path + " is missing");
            }
            return null;
        }
        if (raw == Object.class) {
            return v;
        }
        if (raw == String.class) {
            return v instanceof String s ? s : write(v);
        }
        if (raw == boolean.class || raw == Boolean.class) {
            if (v instanceof Boolean b) {
                return b;
            }
            throw mismatch(path, "a boolean", v);
        }
        if (Number.class.isAssignableFrom(box(raw)) && v instanceof BigDecimal n) {
            return number(n, box(raw), path);
        }
        if (raw.isEnum() && v instanceof String s) {
            for (Object constant : raw.getEnumConstants()) {
                if (((Enum<?>) constant).name().equals(s)) {
                    return constant;
                }
            }
            throw mismatch(path, "one of " + JsonSchemas.enumNames(raw), v);
        }
        if (raw.isArray() && v instanceof List<?> list) {
            Class<?> item = raw.getComponentType();
            Type itemType = type instanceof GenericArrayType g ? g.getGenericComponentType() : item;
            Object array = Array.newInstance(item, list.size());
            for (int i = 0; i < list.size(); i++) {
                Array.set(array, i, convert(list.get(i), itemType, path + "[" + i + "]"));
            }
            return array;
        }
        if (Collection.class.isAssignableFrom(raw) && v instanceof List<?> list) {
            Collection<Object> out = Set.class.isAssignableFrom(raw) ? new LinkedHashSet<>() : new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                out.add(convert(list.get(i), typeArgument(type, 0), path + "[" + i + "]"));
            }
            return out;
        }
        if (Map.class.isAssignableFrom(raw) && v instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.put((String) e.getKey(), convert(e.getValue(), typeArgument(type, 1), path + "." + e.getKey()));
            }
            return out;
        }
        if (raw.isRecord() && v instanceof Map<?, ?> map) {
            RecordComponent[] parts = raw.getRecordComponents();
            Class<?>[] types = new Class<?>[parts.length];
            Object[] values = new Object[parts.length];
            for (int i = 0; i < parts.length; i++) {
                types[i] = parts[i].getType();
                values[i] = convert(map.get(parts[i].getName()), parts[i].getGenericType(), path + "." + parts[i].getName());
            }
            try {
                Constructor<?> ctor = raw.getDeclaredConstructor(types);
                ctor.setAccessible(true);
                return ctor.newInstance(values);
            } catch (InvocationTargetException e) {
                throw new IllegalArgumentException(path + ": " + e.getCause().getMessage(), e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("cannot make a " + raw.getSimpleName() + " for " + path, e);
            }
        }
        throw mismatch(path, "a " + raw.getSimpleName(), v);
    }

    private static Object number(BigDecimal n, Class<?> boxed, String path) {
        try {
            if (boxed == Integer.class) {
                return n.intValueExact();
            } else if (boxed == Long.class) {
                return n.longValueExact();
            } else if (boxed == Short.class) {
                return n.shortValueExact();
            } else if (boxed == Byte.class) {
                return n.byteValueExact();
            } else if (boxed == Double.class) {
                return n.doubleValue();
            } else if (boxed == Float.class) {
                return n.floatValue();
            } else if (boxed == BigInteger.class) {
                return n.toBigIntegerExact();
            } else if (boxed == BigDecimal.class || boxed == Number.class) {
                return n;
            }
        } catch (ArithmeticException e) {
            throw mismatch(path, "a whole " + boxed.getSimpleName() + " in range", n);
        }
        throw mismatch(path, "a " + boxed.getSimpleName(), n);
    }

    private static IllegalArgumentException mismatch(String path, String want, Object got) {
        String text = write(got);
        return new IllegalArgumentException(path + " must be " + want + ", not " + (text.length() > 80 ? text.substring(0, 80) + "..." : text));
    }

    static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return switch (c.getName()) {
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "short" -> Short.class;
            case "byte" -> Byte.class;
            case "double" -> Double.class;
            case "float" -> Float.class;
            case "boolean" -> Boolean.class;
            case "char" -> Character.class;
            default -> Void.class;
        };
    }

    static Class<?> rawClass(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        if (t instanceof GenericArrayType g) {
            return Array.newInstance(rawClass(g.getGenericComponentType()), 0).getClass();
        }
        return Object.class; // a type variable or wildcard: any value
    }

    /** The {@code i}-th type argument of {@code t} ({@code Object} when it has none). */
    static Type typeArgument(Type t, int i) {
        if (t instanceof ParameterizedType p && p.getActualTypeArguments().length > i) {
            return p.getActualTypeArguments()[i];
        }
        return Object.class;
    }

    /** JSON text written as it is where a value goes. */
    record RawJson(String text) {}
}
