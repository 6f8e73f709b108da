package dev.oxmcp;

import java.time.Duration;

/**
 * Per-request options of {@link McpClient#callTool(String, String, RequestOptions)} and
 * {@link McpClient#request(String, String, RequestOptions)}: an inactivity timeout (reset
 * by progress; the engine also applies a hard maximum) and a progress listener.
 *
 * <pre>{@code
 * RequestOptions options = RequestOptions.timeout(Duration.ofSeconds(5))
 *     .onProgress((progress, total, message) -> System.out.println(progress + "/" + total));
 * }</pre>
 */
public final class RequestOptions {
    /** Receives {@code notifications/progress} for one request. */
    @FunctionalInterface
    public interface ProgressListener {
        /**
         * One progress report.
         *
         * @param progress progress so far
         * @param total the total, or null when unknown
         * @param message a status message, or null
         */
        void onProgress(double progress, Double total, String message);
    }

    final Duration timeout;
    final ProgressListener progress;

    private RequestOptions(Duration timeout, ProgressListener progress) {
        this.timeout = timeout;
        this.progress = progress;
    }

    /** @return options with the session's defaults */
    public static RequestOptions defaults() {
        return new RequestOptions(null, null);
    }

    /**
     * @param timeout the inactivity timeout of the request
     * @return options with that timeout
     */
    public static RequestOptions timeout(Duration timeout) {
        return new RequestOptions(timeout, null);
    }

    /**
     * @param listener called for each progress notification of the request
     * @return these options with a progress listener
     */
    public RequestOptions onProgress(ProgressListener listener) {
        return new RequestOptions(timeout, listener);
    }

    /**
     * @param timeout the inactivity timeout of the request
     * @return these options with a timeout
     */
    public RequestOptions withTimeout(Duration timeout) {
        return new RequestOptions(timeout, progress);
    }

    long timeoutMillis() {
        return timeout == null ? 0 : Math.max(1, timeout.toMillis());
    }
}
