package dev.oxmcp;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.Map;

/**
 * Joins the engine's traces to the application's OpenTelemetry (the optional
 * {@code io.opentelemetry:opentelemetry-api}). When the application installed an SDK
 * ({@link GlobalOpenTelemetry}), a handler runs with the engine's span for its request as its
 * current context (or, the engine's own telemetry off, the span the client sent in
 * {@code _meta}); and a client call made inside a span hands that span's W3C trace context to
 * the engine, which makes it the parent of the requests the call sends.
 *
 * <p>Without the API on the class path nothing here touches its classes: {@link #API} is
 * checked first, and only {@link Otel} names them.
 */
final class Telemetry {
    private Telemetry() {}

    /** Whether the OpenTelemetry API is on the class path. */
    static final boolean API = present();

    private static boolean present() {
        try {
            Class.forName("io.opentelemetry.api.trace.Span", false, Telemetry.class.getClassLoader());
            Class.forName("io.opentelemetry.context.Context", false, Telemetry.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Undoes {@link #enter}. */
    interface Exit extends AutoCloseable {
        @Override
        void close();
    }

    private static final Exit NOTHING = () -> {};

    /**
     * Makes the trace context the engine gives {@code ctx}'s request current on this thread,
     * when the application records spans (one native call for the request's facts, only
     * then); close the result where the handler's run ends.
     */
    static Exit enter(RequestContext ctx) {
        if (!API || !Otel.active()) {
            return NOTHING;
        }
        try {
            return Otel.enter(ctx);
        } catch (RuntimeException | LinkageError e) {
            return NOTHING; // a request that is over, or an API too old: the handler runs as it would
        }
    }

    /**
     * For a client's handler of a server request (sampling, elicitation, roots): makes the
     * span the request names in its {@code params._meta} current on this thread; close the
     * result where the handler's run ends.
     */
    static Exit enterMeta(String paramsJson) {
        if (!API || !Otel.active()) {
            return NOTHING;
        }
        try {
            return Otel.enterMeta(paramsJson);
        } catch (RuntimeException | LinkageError e) {
            return NOTHING; // params that are not an object, or an API too old
        }
    }

    /** {@code task} run in the caller's current OpenTelemetry context (on another thread). */
    static Runnable wrap(Runnable task) {
        return API && Otel.active() ? Otel.wrap(task) : task;
    }

    /**
     * The W3C trace context of the caller's current span, {@code [traceparent, tracestate]}
     * (tracestate null when it has none), or null when there is no valid current span.
     */
    static String[] current() {
        if (!API) {
            return null;
        }
        try {
            return Otel.current();
        } catch (LinkageError e) {
            return null;
        }
    }

    /** Everything that names the API's classes (loaded only when {@link #API} holds). */
    private static final class Otel {
        private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
            // Abstract in the API's older versions, deprecated in newer ones.
            @Override
            @SuppressWarnings("deprecation")
            public Iterable<String> keys(Map<String, String> carrier) {
                return carrier.keySet();
            }

            @Override
            public String get(Map<String, String> carrier, String key) {
                return carrier == null ? null : carrier.get(key);
            }
        };

        /** The global instance {@link #recording} was decided for, and the decision. */
        private static volatile Object checked;
        private static volatile boolean recording;

        /**
         * Whether the application's global OpenTelemetry has a tracer provider that is not
         * the API's no-op one: decided once per global instance (a volatile read after that).
         * Never sets the global itself (as {@code GlobalOpenTelemetry.get()} would).
         */
        static boolean active() {
            OpenTelemetry global;
            try {
                global = GlobalOpenTelemetry.getOrNoop();
            } catch (LinkageError e) {
                return true; // an API older than getOrNoop: ask the engine each time
            }
            if (global != checked) {
                TracerProvider noop = TracerProvider.noop();
                recording = global.getTracerProvider().get("dev.oxmcp") != noop.get("dev.oxmcp");
                checked = global;
            }
            return recording;
        }

        static Exit enter(RequestContext ctx) {
            String info = ctx.infoJson();
            return info == null ? NOTHING : enterTrace(Json.members(info));
        }

        static Exit enterMeta(String paramsJson) {
            String meta = paramsJson == null ? null : Json.members(paramsJson).get("_meta");
            return meta == null || !meta.startsWith("{") ? NOTHING : enterTrace(Json.members(meta));
        }

        /** Makes current the span that {@code facts}' {@code traceparent} and {@code tracestate} name. */
        private static Exit enterTrace(Map<String, String> facts) {
            String traceparent = Json.unquote(facts.get("traceparent"));
            if (traceparent == null) {
                return NOTHING;
            }
            Map<String, String> carrier = new HashMap<>();
            carrier.put("traceparent", traceparent);
            String tracestate = Json.unquote(facts.get("tracestate"));
            if (tracestate != null) {
                carrier.put("tracestate", tracestate);
            }
            Context parent = W3CTraceContextPropagator.getInstance().extract(Context.current(), carrier, GETTER);
            if (!Span.fromContext(parent).getSpanContext().isValid()) {
                return NOTHING;
            }
            Scope scope = parent.makeCurrent();
            return scope::close;
        }

        static Runnable wrap(Runnable task) {
            return Context.current().wrap(task);
        }

        static String[] current() {
            Context context = Context.current();
            if (!Span.fromContext(context).getSpanContext().isValid()) {
                return null;
            }
            Map<String, String> carrier = new HashMap<>();
            W3CTraceContextPropagator.getInstance().inject(context, carrier, Map::put);
            String traceparent = carrier.get("traceparent");
            return traceparent == null ? null : new String[] {traceparent, carrier.get("tracestate")};
        }
    }
}
