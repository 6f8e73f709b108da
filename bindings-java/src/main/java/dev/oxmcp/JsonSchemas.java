package dev.oxmcp;

import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JSON Schemas from Java types, for tools' input and output and for elicitation forms: the
 * derivation lives here, where the types are; the engine validates against what it gives
 * (and refuses a form no client can render).
 */
final class JsonSchemas {
    private JsonSchemas() {}

    /** One named member of an object schema: a method parameter or a record component. */
    record Member(String name, Type type, String description, boolean required) {}

    /** An object schema of {@code members}. */
    static Map<String, Object> object(List<Member> members, String description) {
        return object(members, description, new ArrayDeque<>());
    }

    private static Map<String, Object> object(List<Member> members, String description, Deque<Class<?>> outer) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        if (description != null && !description.isEmpty()) {
            s.put("description", description);
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        List<Object> required = new ArrayList<>();
        for (Member m : members) {
            Map<String, Object> p = describe(m.type(), outer);
            if (m.description() != null && !m.description().isEmpty()) {
                p.put("description", m.description());
            }
            properties.put(m.name(), p);
            if (m.required()) {
                required.add(m.name());
            }
        }
        s.put("properties", properties);
        if (!required.isEmpty()) {
            s.put("required", required);
        }
        return s;
    }

    /** The members of a record: its components, with their {@link McpParam}s. */
    static List<Member> members(Class<?> record) {
        List<Member> out = new ArrayList<>();
        for (RecordComponent c : record.getRecordComponents()) {
            McpParam p = c.getAnnotation(McpParam.class);
            String name = p != null && !p.name().isEmpty() ? p.name() : c.getName();
            out.add(new Member(name, c.getGenericType(), p == null ? null : p.description(), required(c.getType(), p)));
        }
        return out;
    }

    /** Whether a member of this type is required: not an Optional, not marked optional. */
    static boolean required(Class<?> type, McpParam p) {
        if (type.isPrimitive()) {
            return true;
        }
        return type != Optional.class && (p == null || p.required());
    }

    /** The schema of a type, or IllegalArgumentException naming what no schema describes. */
    static Map<String, Object> of(Type t) {
        return describe(t, new ArrayDeque<>());
    }

    private static Map<String, Object> describe(Type t, Deque<Class<?>> outer) {
        Class<?> raw = JsonCodec.rawClass(t);
        Class<?> boxed = JsonCodec.box(raw);
        if (raw == Optional.class) {
            return describe(JsonCodec.typeArgument(t, 0), outer);
        }
        if (raw == Object.class) {
            return new LinkedHashMap<>();
        }
        if (raw == String.class || raw == char.class || raw == Character.class) {
            return type("string");
        }
        if (boxed == Boolean.class) {
            return type("boolean");
        }
        if (boxed == Integer.class || boxed == Long.class || boxed == Short.class || boxed == Byte.class || raw == BigInteger.class) {
            return type("integer");
        }
        if (boxed == Double.class || boxed == Float.class || raw == BigDecimal.class || raw == Number.class) {
            return type("number");
        }
        if (raw.isEnum()) {
            Map<String, Object> s = type("string");
            s.put("enum", enumNames(raw));
            return s;
        }
        if (raw.isArray() || Collection.class.isAssignableFrom(raw)) {
            Map<String, Object> s = type("array");
            Type item = raw.isArray() ? itemOfArray(t, raw) : JsonCodec.typeArgument(t, 0);
            s.put("items", describe(item, outer));
            return s;
        }
        if (Map.class.isAssignableFrom(raw)) {
            if (JsonCodec.rawClass(JsonCodec.typeArgument(t, 0)) != String.class && JsonCodec.typeArgument(t, 0) != Object.class) {
                throw new IllegalArgumentException(t.getTypeName() + ": a JSON object's keys are strings");
            }
            Map<String, Object> s = type("object");
            s.put("additionalProperties", describe(JsonCodec.typeArgument(t, 1), outer));
            return s;
        }
        if (raw.isRecord()) {
            if (outer.contains(raw)) {
                throw new IllegalArgumentException(raw.getName() + " contains itself: no JSON Schema here describes a recursive type");
            }
            outer.push(raw);
            try {
                return object(members(raw), null, outer);
            } finally {
                outer.pop();
            }
        }
        throw new IllegalArgumentException(t.getTypeName() + " is not a type a JSON Schema describes here (use a record, an enum, a list, a map, a string, a number or a boolean)");
    }

    private static Type itemOfArray(Type t, Class<?> raw) {
        return t instanceof java.lang.reflect.GenericArrayType g ? g.getGenericComponentType() : raw.getComponentType();
    }

    private static Map<String, Object> type(String name) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", name);
        return s;
    }

    /** An enum's constants' names, the values its schema allows. */
    static List<Object> enumNames(Class<?> e) {
        List<Object> names = new ArrayList<>();
        for (Object c : e.getEnumConstants()) {
            names.add(((Enum<?>) c).name());
        }
        return names;
    }
}
