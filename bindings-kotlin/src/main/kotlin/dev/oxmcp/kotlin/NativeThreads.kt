package dev.oxmcp.kotlin

import com.sun.jna.Callback
import com.sun.jna.CallbackThreadInitializer
import com.sun.jna.Native
import dev.oxmcp.kotlin.ffi.shutdown
import dev.oxmcp.kotlin.ffi.uniffiCallbackInterfaceClientHandler
import dev.oxmcp.kotlin.ffi.uniffiCallbackInterfaceHandler
import dev.oxmcp.kotlin.ffi.uniffiCallbackInterfaceProgressListener
import dev.oxmcp.kotlin.ffi.uniffiForeignFutureDroppedCallbackImpl
import dev.oxmcp.kotlin.ffi.uniffiRustFutureContinuationCallbackImpl

/**
 * Keeps the engine's threads attached to the JVM once a uniffi callback has attached them,
 * and stops the engine when the JVM exits.
 *
 * The engine calls Kotlin from its own (tokio) threads: a handler's call and the drop of its
 * future, the wake-ups of the Rust futures a coroutine waits for, a client's handlers and
 * progress. By default JNA attaches such a thread for each callback and detaches it after,
 * which creates and tears down a `java.lang.Thread` every time: a Flight Recorder profile of
 * the stdio server counted 50,001 attachments for 25,000 calls, and the server was slower
 * than the official Kotlin SDK over stdio because of it (bench/RESULTS.md, issue 21).
 *
 * A thread attached here stays attached until it ends (JNA detaches it then, from a
 * thread-exit hook). It is attached as a daemon: JNA's default without an initializer is a
 * non-daemon thread, and a runtime thread that stayed attached as one would keep the JVM
 * from exiting after `main` returns. That is why this is not `Native.detach(false)` inside
 * the callbacks (which keeps JNA's non-daemon attachment, and cannot be called there anyway:
 * uniffi runs an async callback's body in a coroutine on another thread).
 *
 * JNA reads a callback's initializer when it first hands the callback to native code (the
 * uniffi vtables are handed over when the library loads), so [install] runs before
 * anything touches the generated bindings: [Server] and [Client] call it first. The
 * callbacks named are the generated bindings' own objects (uniffi 0.32's names; internal to
 * this module); the generated code itself is not edited.
 */
internal object NativeThreads {
    init {
        val keepAttached = CallbackThreadInitializer(/* daemon = */ true, /* detach = */ false, "oxmcp-engine")
        val callbacks: List<Callback> = listOf(
            uniffiRustFutureContinuationCallbackImpl,
            uniffiForeignFutureDroppedCallbackImpl,
            uniffiCallbackInterfaceHandler.`handle`,
            uniffiCallbackInterfaceHandler.uniffiFree,
            uniffiCallbackInterfaceHandler.uniffiClone,
            uniffiCallbackInterfaceClientHandler.`request`,
            uniffiCallbackInterfaceClientHandler.`notification`,
            uniffiCallbackInterfaceClientHandler.uniffiFree,
            uniffiCallbackInterfaceClientHandler.uniffiClone,
            uniffiCallbackInterfaceProgressListener.`onProgress`,
            uniffiCallbackInterfaceProgressListener.uniffiFree,
            uniffiCallbackInterfaceProgressListener.uniffiClone,
        )
        for (callback in callbacks) Native.setCallbackThreadInitializer(callback, keepAttached)
        // At the JVM's exit the engine stops as it does under Java: open clients close (their
        // child processes end) and the telemetry still buffered is exported, which a
        // short-lived process would otherwise lose (its metrics are exported on an interval).
        Runtime.getRuntime().addShutdownHook(Thread({ shutdown(1000uL) }, "oxmcp-shutdown"))
    }

    /** Runs the initialization above once (a no-op after). */
    fun install() = Unit
}
