package dev.oxmcp;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Tools, resources and prompts from annotated methods ({@link McpTool}, {@link McpResource},
 * {@link McpPrompt}): the definition (schemas included) derived by reflection, the arguments
 * read into the parameters' types, the context handed over, the return value written as
 * JSON for the engine's result rule. Registered through the server's one door like every
 * handler.
 */
final class Annotated {
    private Annotated() {}

    /** Registers every annotated method of {@code type} (static ones; instance ones on {@code target}). */
    static void register(McpServer server, Class<?> type, Object target, Executor executor) {
        int found = 0;
        for (Method m : type.getDeclaredMethods()) {
            boolean isStatic = Modifier.isStatic(m.getModifiers());
            McpTool tool = m.getAnnotation(McpTool.class);
            McpResource resource = m.getAnnotation(McpResource.class);
            McpPrompt prompt = m.getAnnotation(McpPrompt.class);
            if (tool == null && resource == null && prompt == null) {
                continue;
            }
            if (!isStatic && target == null) {
                throw new IllegalArgumentException(where(m) + " is an instance method: register an instance of " + type.getSimpleName());
            }
            m.setAccessible(true);
            Bound bound = new Bound(m, isStatic ? null : target, executor);
            if (tool != null) {
                server.tool(bound.toolDefinition(tool), bound::callTool);
            } else if (resource != null) {
                String definition = bound.resourceDefinition(resource);
                ResourceHandler read = (uri, variables, ctx) -> bound.read(uri, variables, ctx, resource.mimeType());
                if (resource.uri().contains("{")) {
                    server.resourceTemplate(definition, read);
                } else {
                    server.resource(definition, read);
                }
            } else {
                server.prompt(bound.promptDefinition(prompt), bound::getPrompt);
            }
            found++;
        }
        if (found == 0) {
            throw new IllegalArgumentException(type.getName() + " has no @McpTool, @McpResource or @McpPrompt method");
        }
    }

    static String where(Method m) {
        return m.getDeclaringClass().getSimpleName() + "." + m.getName();
    }

    /** {@code searchNotes} as {@code search_notes}. */
    static String snake(String name) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c) && i > 0) {
                b.append('_');
            }
            b.append(Character.toLowerCase(c));
        }
        return b.toString();
    }

    /** One method, bound to its target, with what its parameters are. */
    private static final class Bound {
        private final Method method;
        private final Object target;
        private final Executor executor;
        /** Each parameter's argument name, or null for the context. */
        private final String[] names;
        private final boolean async;

        Bound(Method method, Object target, Executor executor) {
            this.method = method;
            this.target = target;
            this.executor = executor;
            Parameter[] ps = method.getParameters();
            names = new String[ps.length];
            for (int i = 0; i < ps.length; i++) {
                if (ps[i].getType() == RequestContext.class) {
                    continue;
                }
                McpParam p = ps[i].getAnnotation(McpParam.class);
                if (p != null && !p.name().isEmpty()) {
                    names[i] = p.name();
                } else if (ps[i].isNamePresent()) {
                    names[i] = ps[i].getName();
                } else {
                    throw new IllegalArgumentException(where(method) + ": its parameters have no names here: compile with -parameters, "
                            + "or name each with @McpParam(name = ...)");
                }
            }
            async = CompletionStage.class.isAssignableFrom(method.getReturnType());
        }

        private List<JsonSchemas.Member> members() {
            List<JsonSchemas.Member> out = new ArrayList<>();
            Parameter[] ps = method.getParameters();
            for (int i = 0; i < ps.length; i++) {
                if (names[i] == null) {
                    continue;
                }
                McpParam p = ps[i].getAnnotation(McpParam.class);
                out.add(new JsonSchemas.Member(names[i], ps[i].getParameterizedType(), p == null ? null : p.description(),
                        JsonSchemas.required(ps[i].getType(), p)));
            }
            return out;
        }

        /** What the method's value is: its return type, or a future's value type. */
        private Type valueType() {
            Type t = method.getGenericReturnType();
            return async ? JsonCodec.typeArgument(t, 0) : t;
        }

        String toolDefinition(McpTool a) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", a.name().isEmpty() ? snake(method.getName()) : a.name());
            put(d, "title", a.title());
            put(d, "description", a.description());
            try {
                d.put("inputSchema", JsonSchemas.object(members(), null));
                Class<?> value = JsonCodec.rawClass(valueType());
                if (value.isRecord()) {
                    d.put("outputSchema", JsonSchemas.of(valueType()));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where(method) + ": " + e.getMessage(), e);
            }
            Map<String, Object> hints = new LinkedHashMap<>();
            if (a.readOnly()) {
                hints.put("readOnlyHint", true);
            } else if (!a.destructive()) {
                hints.put("destructiveHint", false);
            }
            if (a.idempotent()) {
                hints.put("idempotentHint", true);
            }
            if (!a.openWorld()) {
                hints.put("openWorldHint", false);
            }
            if (!hints.isEmpty()) {
                d.put("annotations", hints);
            }
            return JsonCodec.write(d);
        }

        String resourceDefinition(McpResource a) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put(a.uri().contains("{") ? "uriTemplate" : "uri", a.uri());
            d.put("name", a.name().isEmpty() ? method.getName() : a.name());
            put(d, "description", a.description());
            put(d, "mimeType", a.mimeType());
            return JsonCodec.write(d);
        }

        String promptDefinition(McpPrompt a) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", a.name().isEmpty() ? snake(method.getName()) : a.name());
            put(d, "title", a.title());
            put(d, "description", a.description());
            List<Object> arguments = new ArrayList<>();
            for (JsonSchemas.Member m : members()) {
                Map<String, Object> arg = new LinkedHashMap<>();
                arg.put("name", m.name());
                put(arg, "description", m.description());
                arg.put("required", m.required());
                arguments.add(arg);
            }
            d.put("arguments", arguments);
            return JsonCodec.write(d);
        }

        private static void put(Map<String, Object> d, String key, String value) {
            if (value != null && !value.isEmpty()) {
                d.put(key, value);
            }
        }

        CompletableFuture<String> callTool(String argumentsJson, RequestContext ctx) {
            Map<?, ?> args = (Map<?, ?>) JsonCodec.parse(argumentsJson);
            return run(ctx, i -> JsonCodec.convert(args.get(names[i]), method.getParameters()[i].getParameterizedType(), names[i]))
                    .thenApply(JsonCodec::write);
        }

        CompletableFuture<String> read(String uri, String variablesJson, RequestContext ctx, String mimeType) {
            Map<?, ?> vars = (Map<?, ?>) JsonCodec.parse(variablesJson);
            return run(ctx, i -> names[i].equals("uri") && !vars.containsKey("uri") ? uri : fromText(vars.get(names[i]), i)).thenApply(v -> {
                String mime = mimeType.isEmpty() ? null : mimeType;
                if (v instanceof String text) {
                    return Json.textResource(uri, mime == null ? "text/plain" : mime, text);
                }
                if (v instanceof byte[] bytes) {
                    Map<String, Object> blob = new LinkedHashMap<>();
                    blob.put("uri", uri);
                    blob.put("mimeType", mime == null ? "application/octet-stream" : mime);
                    blob.put("blob", Base64.getEncoder().encodeToString(bytes));
                    return JsonCodec.write(Map.of("contents", List.of(blob)));
                }
                return JsonCodec.write(v);
            });
        }

        CompletableFuture<String> getPrompt(String argumentsJson, RequestContext ctx) {
            Map<?, ?> args = (Map<?, ?>) JsonCodec.parse(argumentsJson);
            return run(ctx, i -> fromText(args.get(names[i]), i)).thenApply(v -> {
                if (v instanceof String text) {
                    return Json.userPrompt(text);
                }
                if (v instanceof List<?> list && list.stream().allMatch(x -> x instanceof String)) {
                    List<Object> messages = new ArrayList<>();
                    for (Object text : list) {
                        messages.add(Map.of("role", "user", "content", Map.of("type", "text", "text", text)));
                    }
                    return JsonCodec.write(Map.of("messages", messages));
                }
                return JsonCodec.write(v);
            });
        }

        /** A prompt argument's or a URI variable's text as its parameter's type. */
        private Object fromText(Object text, int i) {
            Type type = method.getParameters()[i].getParameterizedType();
            Class<?> raw = JsonCodec.rawClass(type);
            if (text == null || raw == String.class || raw == Object.class || !(text instanceof String s)) {
                return JsonCodec.convert(text, type, names[i]);
            }
            if (raw.isEnum() || raw == java.util.Optional.class && JsonCodec.rawClass(JsonCodec.typeArgument(type, 0)) == String.class) {
                return JsonCodec.convert(s, type, names[i]);
            }
            Object parsed;
            try {
                parsed = JsonCodec.parse(s);
            } catch (IllegalArgumentException e) {
                parsed = s;
            }
            return JsonCodec.convert(parsed, type, names[i]);
        }

        private interface Argument {
            Object at(int i);
        }

        /** Calls the method with its arguments: a future-returning one here, any other on the executor. */
        private CompletableFuture<Object> run(RequestContext ctx, Argument argument) {
            Object[] values;
            try {
                values = new Object[names.length];
                for (int i = 0; i < names.length; i++) {
                    values[i] = names[i] == null ? ctx : argument.at(i);
                }
            } catch (IllegalArgumentException e) {
                return CompletableFuture.failedFuture(new McpException(McpException.Kind.INVALID_INPUT, -32602L, e.getMessage(), null));
            }
            if (async) {
                try {
                    Object stage = invoke(values);
                    if (stage == null) {
                        return CompletableFuture.completedFuture(null);
                    }
                    CompletableFuture<?> future = ((CompletionStage<?>) stage).toCompletableFuture();
                    // A client's cancel reaches the method's own future, not only the one made from it here.
                    ctx.onCancel(() -> future.cancel(true));
                    return future.thenApply(x -> x);
                } catch (Throwable e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            CompletableFuture<Object> out = new CompletableFuture<>();
            Running running = new Running();
            ctx.onCancel(running::interrupt);
            // Telemetry.wrap: the method runs in the handler's trace context (see Native.run).
            executor.execute(Telemetry.wrap(() -> {
                if (!running.start() || ctx.isCancelled()) {
                    out.cancel(false);
                    return;
                }
                try {
                    out.complete(invoke(values));
                } catch (Throwable e) {
                    out.completeExceptionally(e);
                } finally {
                    running.end();
                }
            }));
            return out;
        }

        private Object invoke(Object[] values) throws Throwable {
            try {
                return method.invoke(target, values);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    /** The thread running a blocking method, to interrupt on a client's cancel, and only while it runs it. */
    private static final class Running {
        private Thread thread;
        private boolean cancelled;

        synchronized boolean start() {
            thread = Thread.currentThread();
            return !cancelled;
        }

        synchronized void end() {
            thread = null;
            Thread.interrupted(); // a cancel that came as it returned stays with this call
        }

        synchronized void interrupt() {
            cancelled = true;
            if (thread != null) {
                thread.interrupt();
            }
        }
    }
}
