package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/**
 * The future of a native call. Settling it from Java first — {@code cancel(true)},
 * {@code orTimeout}, {@code complete}, {@code completeExceptionally} — cancels the native
 * call: a client request is then cancelled in the engine, which sends
 * {@code notifications/cancelled} to the server. Dependent stages ({@code thenApply} ...)
 * are plain futures: cancel this one, not theirs, to cancel the request.
 */
final class NativeFuture<T> extends CompletableFuture<T> {
    private final long callId;

    NativeFuture(long callId) {
        this.callId = callId;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean done = super.cancel(mayInterruptIfRunning);
        if (done) {
            Native.abandon(callId);
        }
        return done;
    }

    @Override
    public boolean complete(T value) {
        boolean done = super.complete(value);
        if (done) {
            Native.abandon(callId);
        }
        return done;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean done = super.completeExceptionally(ex);
        if (done) {
            Native.abandon(callId);
        }
        return done;
    }

    /** Completes with the native result. */
    void settle(T value) {
        super.complete(value);
    }

    /** Fails with the native error. */
    void fail(Throwable error) {
        super.completeExceptionally(error);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}
