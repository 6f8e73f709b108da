package dev.oxmcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One incoming request, as a handler sees it: cancellation by the client, progress and
 * logging back to the client, and facts about the request.
 *
 * <p>When the client cancels ({@code notifications/cancelled}, or it disconnects),
 * {@link #isCancelled()} turns true, {@link #onCancel(Runnable)} callbacks run, and the
 * future the handler returned is cancelled. No response is sent for a cancelled request.
 */
public final class RequestContext {
    final long handle;
    private final List<Runnable> cancelCallbacks = new ArrayList<>();
    private boolean cancelled;
    private CompletableFuture<?> result;

    RequestContext(long handle) {
        this.handle = handle;
    }

    /**
     * Whether the client cancelled this request: true as soon as the engine saw the cancel
     * (possibly just before the {@link #onCancel} callbacks run), and once the request is
     * over.
     *
     * @return whether the client cancelled this request
     */
    public boolean isCancelled() {
        synchronized (this) {
            if (cancelled) {
                return true;
            }
        }
        return "true".equals(callNow("cancelled", null));
    }

    /**
     * Runs {@code callback} when the client cancels this request (at once, on this
     * thread, if it already did). Callbacks run on an oxmcp worker thread.
     *
     * @param callback what to run
     */
    public void onCancel(Runnable callback) {
        synchronized (this) {
            if (!cancelled) {
                cancelCallbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    /**
     * Sends {@code notifications/progress} (nothing if the client asked for no progress).
     *
     * @param progress progress so far (must increase)
     * @param total the total, or null
     * @param message a status message, or null
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for a number that is not finite
     */
    public void progress(double progress, Double total, String message) {
        StringBuilder params = new StringBuilder("{\"progress\":").append(progress);
        if (total != null) {
            params.append(",\"total\":").append(total);
        }
        if (message != null) {
            params.append(",\"message\":").append(Json.quote(message));
        }
        callNow("progress", params.append('}').toString());
    }

    /**
     * Sends a log message ({@code notifications/message}) if the client's level lets it through.
     *
     * @param level debug, info, notice, warning, error, critical, alert or emergency
     * @param dataJson the data as JSON text (e.g. {@code Json.quote("text")})
     */
    public void log(String level, String dataJson) {
        log(level, null, dataJson);
    }

    /**
     * Sends a log message with a logger name.
     *
     * @param level the level
     * @param logger the logger name, or null
     * @param dataJson the data as JSON text
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for an unknown level or data that is not JSON
     */
    public void log(String level, String logger, String dataJson) {
        String params = "{\"level\":" + Json.quote(level)
                + (logger != null ? ",\"logger\":" + Json.quote(logger) : "")
                + ",\"data\":" + (dataJson == null ? "null" : dataJson) + "}";
        callNow("log", params);
    }

    /**
     * The request's facts as JSON: {@code requestId}, {@code progressToken},
     * {@code clientInfo}, {@code clientCapabilities}, {@code protocolVersion},
     * {@code cancelled}, {@code auth} (see {@link #auth()}), {@code headers}, and
     * {@code traceparent} / {@code tracestate}: the W3C trace context of the engine's span
     * for this request (the handler already runs in it when the application traces with
     * OpenTelemetry; see the README).
     *
     * @return the JSON object, or null once the request is over
     */
    public String infoJson() {
        String info = callNow("info", null);
        return "null".equals(info) ? null : info;
    }

    /**
     * Who the request's OAuth access token speaks for, on a listener protected with
     * {@link HttpAuth}: subject, client id, granted scopes, expiry and the token's claims.
     *
     * <pre>{@code
     * AuthInfo who = ctx.auth();
     * if (who == null || !who.scopes().contains("admin")) { ... }
     * }</pre>
     *
     * @return who the token speaks for; null when the request came without one (stdio, an
     *     unprotected listener), for a client's handler, or once the request is over
     */
    public AuthInfo auth() {
        String info = infoJson();
        return info == null ? null : AuthInfo.parse(Json.members(info).get("auth"));
    }

    /**
     * Asks the client's model for a completion ({@code sampling/createMessage}); the client
     * must have declared sampling.
     *
     * @param paramsJson {@code CreateMessageRequestParams}: {@code messages}, {@code maxTokens}
     *     (optional: the engine fills in the protocol default), ...
     * @return the {@code CreateMessageResult} JSON; cancel it to cancel the request
     */
    public CompletableFuture<String> sample(String paramsJson) {
        return Native.call(Native.Done::json, null, id -> Native.requestCall(handle, "sampling/createMessage", paramsJson, id));
    }

    /**
     * Asks the user through the client ({@code elicitation/create}).
     *
     * @param paramsJson {@code ElicitRequestParams}: {@code message}, {@code requestedSchema}
     * @return the {@code ElicitResult} JSON ({@code action}, {@code content})
     */
    public CompletableFuture<String> elicit(String paramsJson) {
        return Native.call(Native.Done::json, null, id -> Native.requestCall(handle, "elicitation/create", paramsJson, id));
    }

    /**
     * Asks the user through the client to fill in a form of {@code type}'s components
     * ({@code elicitation/create}): the requested schema derived from the record (strings,
     * numbers, booleans, enums; {@code Optional} or {@link McpParam#required()} false
     * components optional, {@link McpParam#description()} shown), the accepted answer read
     * into a {@code T}. A form no client could render (a nested record, a list...) fails with
     * {@link McpException.Kind#INVALID_INPUT} naming the component, before anything is sent.
     *
     * <pre>{@code
     * record Confirm(boolean confirm, @McpParam(required = false) String reason) {}
     * ctx.elicit("Delete " + name + "?", Confirm.class).thenApply(a -> a.accepted() && a.content().confirm() ? ... : "kept");
     * }</pre>
     *
     * @param message what the user is asked
     * @param type a record type
     * @param <T> the form's type
     * @return the user's action and, when accepted, the form's content
     */
    public <T extends Record> CompletableFuture<Elicited<T>> elicit(String message, Class<T> type) {
        String params;
        try {
            params = JsonCodec.write(Map.of("message", message, "requestedSchema",
                    new JsonCodec.RawJson(JsonCodec.write(JsonSchemas.object(JsonSchemas.members(type), null)))));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new McpException(McpException.Kind.INVALID_INPUT, null, e.getMessage(), null));
        }
        return elicit(params).thenApply(reply -> {
            Map<?, ?> r = (Map<?, ?>) JsonCodec.parse(reply);
            String action = String.valueOf(r.get("action"));
            Object content = r.get("content");
            T value = "accept".equals(action) && content != null ? type.cast(JsonCodec.convert(content, type, "content")) : null;
            return new Elicited<>(action, value);
        });
    }

    /**
     * A user's answer to {@link #elicit(String, Class)}.
     *
     * @param action {@code accept}, {@code decline} or {@code cancel}
     * @param content the form's content when accepted, else null
     * @param <T> the form's type
     */
    public record Elicited<T>(String action, T content) {
        /** @return whether the user accepted and gave the form */
        public boolean accepted() {
            return "accept".equals(action) && content != null;
        }
    }

    /**
     * In an escalating tool (its definition has {@code "escalating": true} and a
     * {@code taskSupport} of {@code optional} or {@code required}): goes on as a task from
     * here. The client is handed the task and follows it; what the handler asked so far was
     * asked inline.
     *
     * @return {@code true} once the call is a task, {@code false} when it stays inline (the
     *     client did not ask for a task)
     */
    public CompletableFuture<Boolean> escalateToTask() {
        return Native.call(d -> Boolean.parseBoolean(d.json()), null, id -> Native.requestCall(handle, "escalate", null, id));
    }

    /** In a middleware's call: runs the rest of the chain (see {@link Middleware.Next}). */
    CompletableFuture<String> next(String paramsJson) {
        return Native.call(Native.Done::json, null, id -> Native.requestCall(handle, "next", paramsJson, id));
    }

    /**
     * Reads one of this server's own resources as a client would, with this request's
     * session.
     *
     * @param uri the resource's URI
     * @return the {@code ReadResourceResult} JSON
     */
    public CompletableFuture<String> readResource(String uri) {
        Objects.requireNonNull(uri, "uri");
        return Native.call(Native.Done::json, null, id -> Native.requestCall(handle, "resources/read", "{\"uri\":" + Json.quote(uri) + "}", id));
    }

    /**
     * Over Streamable HTTP, ends the SSE stream this request answers on; the client
     * reconnects and still gets the result. Nothing over stdio.
     */
    public void endResponseStream() {
        callNow("end response stream", null);
    }

    /**
     * Asks the client for its roots ({@code roots/list}).
     *
     * @return the {@code ListRootsResult} JSON
     */
    public CompletableFuture<String> listRoots() {
        return Native.call(Native.Done::json, null, id -> Native.requestCall(handle, "roots/list", null, id));
    }

    /**
     * Asks the request {@code op} (a name of the engine's context door) with
     * {@code paramsJson}, answered at once: the answer's JSON, or null. Throws
     * {@link McpException} on a failure.
     */
    private String callNow(String op, String paramsJson) {
        return Native.requestCallNow(handle, op, paramsJson);
    }

    void attach(CompletableFuture<?> future) {
        boolean cancelNow;
        synchronized (this) {
            result = future;
            cancelNow = cancelled;
        }
        if (cancelNow) {
            future.cancel(true);
        }
    }

    void fireCancel() {
        List<Runnable> callbacks;
        CompletableFuture<?> future;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            callbacks = new ArrayList<>(cancelCallbacks);
            cancelCallbacks.clear();
            future = result;
        }
        for (Runnable r : callbacks) {
            try {
                r.run();
            } catch (RuntimeException e) {
                e.printStackTrace();
            }
        }
        if (future != null) {
            future.cancel(true);
        }
    }
}
