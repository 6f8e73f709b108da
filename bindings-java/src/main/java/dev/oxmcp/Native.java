package dev.oxmcp;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The JNI boundary: native methods of {@code liboxmcp_java.so}, and the static callbacks
 * the library calls (from its runtime threads, attached as daemon threads). Callbacks
 * only hand work to Java executors, so host code never runs on an engine thread.
 */
final class Native {
    private Native() {}

    /** Handlers, future completions: any number at once. Daemon threads. */
    static final ExecutorService WORKERS = Executors.newCachedThreadPool(daemon("oxmcp-worker"));
    /** Notifications and progress, in the order they arrived. Daemon thread. */
    static final ExecutorService EVENTS = Executors.newSingleThreadExecutor(daemon("oxmcp-events"));

    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    private static final Map<Long, Pending<?>> CALLS = new ConcurrentHashMap<>();
    private static final Map<Long, McpClient.NotificationListener> LISTENERS = new ConcurrentHashMap<>();
    private static final Map<Long, Invoker> HANDLERS = new ConcurrentHashMap<>();
    private static final Map<Long, RequestContext> REQUESTS = new ConcurrentHashMap<>();

    /** The library's file name, {@code liboxmcp_java.so} on Linux. */
    static final String LIBRARY = System.mapLibraryName("oxmcp_java");
    static final String VERSION;

    static {
        load();
        VERSION = init();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> shutdown(1000), "oxmcp-shutdown"));
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    // ---- loading -------------------------------------------------------------------

    /**
     * Loads the library from, in order: the system property {@code oxmcp.library.path},
     * the environment variable {@code OXMCP_JAVA_LIBRARY}, the copy inside the jar
     * ({@code /native/<platform>/liboxmcp_java.so}, extracted to a private temporary
     * directory), a Cargo build output ({@code $CARGO_TARGET_DIR}, or
     * {@code target/{debug,release}} in a parent of the working directory or of this class's
     * location), then {@code java.library.path}. The explicit settings come first so a user
     * can replace the bundled library; the jar's copy comes before build outputs so a
     * published jar never picks up a stray development build.
     */
    private static void load() {
        for (String explicit : new String[] {System.getProperty("oxmcp.library.path"), System.getenv("OXMCP_JAVA_LIBRARY")}) {
            if (explicit != null && !explicit.isBlank()) {
                System.load(Paths.get(explicit).toAbsolutePath().toString());
                return;
            }
        }
        Path found = extractBundled();
        if (found == null) {
            found = findBuildOutput();
        }
        if (found != null) {
            System.load(found.toString());
        } else {
            System.loadLibrary("oxmcp_java");
        }
    }

    /**
     * The jar's folder for this platform, {@code <os>-<arch>} as in {@code linux-x86_64}, and
     * {@code linux-musl-<arch>} on a musl distribution (Alpine), whose loader cannot load a
     * library built for glibc; null for a platform no build is named for yet.
     */
    static String platform() {
        return platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""), Paths.get("/"));
    }

    /** {@link #platform()} for the given {@code os.name}, {@code os.arch} and file system root. */
    static String platform(String osName, String osArch, Path root) {
        String os = osName.toLowerCase(Locale.ROOT);
        String name = os.startsWith("linux") ? "linux"
                : os.startsWith("mac") ? "macos"
                : os.startsWith("windows") ? "windows"
                : null;
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> null;
        };
        if (name == null || arch == null) {
            return null;
        }
        if (name.equals("linux") && runsOnMusl(root, arch)) {
            name = "linux-musl";
        }
        return name + "-" + arch;
    }

    /**
     * Whether this JVM runs on musl: its own dynamic loader, mapped into the process, is
     * musl's. A glibc system may have musl installed beside (Debian's {@code musl} package puts
     * its loader in /lib too), so the file's presence decides only where /proc cannot be read.
     */
    private static boolean runsOnMusl(Path root, String arch) {
        Path maps = root.resolve("proc/self/maps");
        if (Files.isReadable(maps)) {
            try (var lines = Files.lines(maps)) {
                return lines.anyMatch(line -> line.contains("/ld-musl-") || line.contains("/libc.musl-"));
            } catch (IOException | UncheckedIOException e) {
                // unreadable after all: the file check below
            }
        }
        return Files.exists(root.resolve("lib/ld-musl-" + arch + ".so.1"));
    }

    /**
     * Copies the library bundled in the jar for this platform to a file of its own, since
     * {@code System.load} needs a path; null when the jar has none for this platform.
     */
    private static Path extractBundled() {
        String platform = platform();
        if (platform == null) {
            return null;
        }
        try (InputStream in = Native.class.getResourceAsStream("/native/" + platform + "/" + LIBRARY)) {
            if (in == null) {
                return null;
            }
            // A new directory with a random name, readable by this user only (on POSIX), so no
            // one else can swap the file between the copy and the load.
            Path dir = Files.createTempDirectory("oxmcp-");
            Path lib = dir.resolve(LIBRARY);
            // Deleted in the reverse order of registration: the file, then its directory.
            // (Windows keeps a loaded DLL: both stay there.)
            dir.toFile().deleteOnExit();
            lib.toFile().deleteOnExit();
            Files.copy(in, lib);
            return lib;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the bundled " + LIBRARY, e);
        }
    }

    private static Path findBuildOutput() {
        List<Path> roots = new ArrayList<>();
        String targetDir = System.getenv("CARGO_TARGET_DIR");
        List<Path> candidates = new ArrayList<>();
        if (targetDir != null && !targetDir.isBlank()) {
            candidates.add(Paths.get(targetDir, "debug", LIBRARY));
            candidates.add(Paths.get(targetDir, "release", LIBRARY));
        }
        roots.add(Paths.get("").toAbsolutePath());
        try {
            roots.add(Paths.get(Native.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (URISyntaxException | RuntimeException ignored) {
            // no code source: the working directory still counts
        }
        for (Path root : roots) {
            for (Path dir = root; dir != null; dir = dir.getParent()) {
                candidates.add(dir.resolve("target").resolve("debug").resolve(LIBRARY));
                candidates.add(dir.resolve("target").resolve("release").resolve(LIBRARY));
            }
        }
        Path best = null;
        for (Path p : candidates) {
            File f = p.toFile();
            if (f.isFile() && (best == null || f.lastModified() > best.toFile().lastModified())) {
                best = p;
            }
        }
        return best;
    }

    // ---- native methods --------------------------------------------------------------

    static native String init();

    static native void shutdown(long graceMs);

    static native boolean isShutdown();

    static native void cancelCall(long callId);

    static native String stats();

    static native String errorKinds();

    static native long serverNew(String name, String version, String instructions);

    static native String serverRegister(long server, String kind, String definition, long handlerId);

    static native String serverVerifyTokens(long server, long handlerId);

    static native String serverSetTaskOptions(long server, String optionsJson);

    static native String serverAddSkill(long server, String skillPath, String filesJson);

    static native String serverAddSkillsDir(long server, String root);

    static native boolean serverRemove(long server, String kind, String key);

    static native String serverMount(long server, String prefix, long other);

    static native void serverMountClient(long server, String prefix, long client, long callId);

    static native long serverSessionCount(long server);

    static native void serverNotifyResourceUpdated(long server, String uri);

    static native void serverServeStdio(long server, long callId);

    static native void serverStartHttp(long server, String host, int port, String path, boolean stateless, boolean jsonResponse, long callId);

    static native void serverStartHttpOptions(long server, String optionsJson, long callId);

    static native void serverStopHttp(long server, long callId);

    static native void serverFree(long server);

    static native void serverHttpApp(long server, String optionsJson, long callId);

    static native void httpAppHandle(long app, long exchange, String method, String target, String headersJson, byte[] body, long callId);

    static native void httpAppNext(long app, long exchange, boolean stop, long callId);

    static native void httpAppFree(long app);

    static native void requestComplete(long request, String json);

    static native void requestFail(long request, boolean hasCode, long code, String message, String data);

    /**
     * The context door, answered at once: asks the request {@code op} ({@code info},
     * {@code cancelled}, {@code progress}, {@code log}, {@code end response stream}) with
     * {@code params} JSON (null: none); the answer's JSON or null. Throws McpException.
     */
    static native String requestCallNow(long request, String op, String params);

    /**
     * The context door for every op (also {@code sampling/createMessage},
     * {@code elicitation/create}, {@code roots/list}, {@code resources/read},
     * {@code escalate}, {@code next}), completing the call {@code callId}.
     */
    static native void requestCall(long request, String op, String params, long callId);

    static native void clientConnect(String optionsJson, long handlerId, long listenerId, long callId);

    /**
     * A client call; {@code traceparent} and {@code tracestate} (null: none) are the W3C trace
     * context of the caller's span, the parent of the requests the call sends.
     */
    static native void clientCall(long client, String op, String a, String b, long timeoutMs, boolean progress,
            String traceparent, String tracestate, long callId);

    static native String clientNotifyRootsChanged(long client);

    static native long clientPending(long client);

    static native boolean clientStateless(long client);

    static native void clientClose(long client, long callId);

    // ---- asynchronous calls ------------------------------------------------------------

    /** A Java future waiting for a native call. */
    static final class Pending<T> {
        final NativeFuture<T> future;
        final Function<Done, T> convert;
        final RequestOptions.ProgressListener progress;

        Pending(NativeFuture<T> future, Function<Done, T> convert, RequestOptions.ProgressListener progress) {
            this.future = future;
            this.convert = convert;
            this.progress = progress;
        }
    }

    /** What a native call produced: JSON text (or null) and a handle (or 0), or bytes. */
    record Done(String json, long handle, byte[] bytes) {
        Done(String json, long handle) {
            this(json, handle, null);
        }
    }

    /** Starts a native call: registers its future first, then runs {@code start(callId)}. */
    static <T> CompletableFuture<T> call(Function<Done, T> convert, RequestOptions.ProgressListener progress, java.util.function.LongConsumer start) {
        long id = NEXT_ID.getAndIncrement();
        NativeFuture<T> future = new NativeFuture<>(id);
        CALLS.put(id, new Pending<>(future, convert, progress));
        try {
            start.accept(id);
        } catch (RuntimeException | Error e) {
            CALLS.remove(id);
            future.fail(e);
        }
        return future;
    }

    /** Called by {@link NativeFuture} when Java settled the future first (cancel, timeout). */
    static void abandon(long callId) {
        if (CALLS.remove(callId) != null) {
            cancelCall(callId);
        }
    }

    /** Called from Rust: the call succeeded. */
    static void onSuccess(long callId, String json, long handle) {
        Pending<?> p = CALLS.remove(callId);
        if (p != null) {
            Runnable settle = () -> settle(p, new Done(json, handle));
            // Progress reports queued before the result are delivered before it completes.
            if (p.progress != null) {
                EVENTS.execute(() -> WORKERS.execute(settle));
            } else {
                WORKERS.execute(settle);
            }
        }
    }

    private static <T> void settle(Pending<T> p, Done done) {
        T value;
        try {
            value = p.convert.apply(done);
        } catch (RuntimeException e) {
            p.future.fail(e);
            return;
        }
        p.future.settle(value);
    }

    /** Called from Rust: an HTTP answer's next chunk (null: its body ended). */
    static void onChunk(long callId, byte[] chunk) {
        Pending<?> p = CALLS.remove(callId);
        if (p != null) {
            WORKERS.execute(() -> settle(p, new Done(null, 0, chunk)));
        }
    }

    /** Called from Rust: the call failed. */
    static void onFailure(long callId, int kind, boolean hasCode, long code, String message, String data) {
        Pending<?> p = CALLS.remove(callId);
        if (p != null) {
            McpException.Kind k = McpException.Kind.fromCode(kind);
            McpException e = new McpException(k, hasCode ? code : null, message, data);
            if (p.progress != null) {
                EVENTS.execute(() -> WORKERS.execute(() -> p.future.fail(e)));
            } else {
                WORKERS.execute(() -> p.future.fail(e));
            }
        }
    }

    /** Called from Rust: progress of a client request. */
    static void onProgress(long callId, double progress, double total, String message) {
        Pending<?> p = CALLS.get(callId);
        if (p != null && p.progress != null) {
            Double t = Double.isNaN(total) ? null : total;
            EVENTS.execute(() -> p.progress.onProgress(progress, t, message));
        }
    }

    // ---- notifications -----------------------------------------------------------------

    static long addListener(McpClient.NotificationListener listener) {
        long id = NEXT_ID.getAndIncrement();
        LISTENERS.put(id, listener);
        return id;
    }

    static void removeListener(long id) {
        LISTENERS.remove(id);
    }

    /** Called from Rust: a server notification for a client. */
    static void onNotification(long listenerId, String method, String params) {
        McpClient.NotificationListener l = LISTENERS.get(listenerId);
        if (l != null) {
            EVENTS.execute(() -> {
                try {
                    l.onNotification(method, params);
                } catch (RuntimeException e) {
                    e.printStackTrace();
                }
            });
        }
    }

    // ---- server handlers ------------------------------------------------------------

    /**
     * A registered handler. {@code input} is the JSON the engine passes (a resource read's
     * is {@code {"uri": ..., "variables": {...}}}); {@code method} names the server request a
     * client's handler answers, null for a server's handler.
     */
    interface Invoker {
        CompletableFuture<String> invoke(String input, String method, RequestContext ctx) throws Exception;
    }

    static long addHandler(Invoker invoker) {
        long id = NEXT_ID.getAndIncrement();
        HANDLERS.put(id, invoker);
        return id;
    }

    static void removeHandler(long id) {
        HANDLERS.remove(id);
    }

    /** Called from Rust: run a handler for the incoming request {@code request}. */
    static void onRequest(long handlerId, long request, String input, String method) {
        Invoker invoker = HANDLERS.get(handlerId);
        if (invoker == null) {
            requestFail(request, false, 0, "the handler was removed", null);
            return;
        }
        RequestContext ctx = new RequestContext(request);
        REQUESTS.put(request, ctx);
        WORKERS.execute(() -> run(invoker, input, method, ctx));
    }

    private static void run(Invoker invoker, String input, String method, RequestContext ctx) {
        CompletableFuture<String> result;
        // The handler's spans are children of the engine's span for this request (when the
        // application traces with OpenTelemetry).
        Telemetry.Exit traced = Telemetry.enter(ctx);
        try {
            result = invoker.invoke(input, method, ctx);
            if (result == null) {
                throw new IllegalStateException("the handler returned a null future");
            }
        } catch (Throwable t) {
            result = CompletableFuture.failedFuture(t);
        } finally {
            traced.close();
        }
        ctx.attach(result);
        result.whenComplete((json, error) -> {
            REQUESTS.remove(ctx.handle);
            if (error == null) {
                requestComplete(ctx.handle, json);
            } else {
                Throwable cause = unwrap(error);
                if (cause instanceof McpException m && m.code() != null) {
                    requestFail(ctx.handle, true, m.code(), m.getMessage(), m.data());
                } else {
                    requestFail(ctx.handle, false, 0, describe(cause), null);
                }
            }
        });
    }

    /** Called from Rust: the peer cancelled the incoming request. */
    static void onCancel(long request) {
        RequestContext ctx = REQUESTS.get(request);
        if (ctx != null) {
            WORKERS.execute(ctx::fireCancel);
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The message alone, as every host sends it (the class's name when there is none). */
    private static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isEmpty() ? t.getClass().getSimpleName() : m;
    }

    /** {@code [running native calls, incoming requests in Java handlers]}, for leak checks. */
    static long[] nativeStats() {
        String s = stats();
        String[] parts = s.substring(1, s.length() - 1).split(",");
        return new long[] {Long.parseLong(parts[0].trim()), Long.parseLong(parts[1].trim())};
    }

    static int pendingJavaCalls() {
        return CALLS.size();
    }
}
