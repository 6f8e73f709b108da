package dev.oxmcp;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a server keeps the tasks of its tools that run as tasks (the
 * {@code io.modelcontextprotocol/tasks} extension: a tool whose definition has
 * {@code "execution": {"taskSupport": "optional"}} or {@code "required"}); see
 * {@link McpServer#taskOptions(TaskOptions)}. What is not set keeps the engine's default. Past
 * {@link #maxTasks} or {@link #maxRunning}, a call that would start a task is refused.
 *
 * <pre>{@code
 * McpServer server = new McpServer("jobs", "1.0.0")
 *     .taskOptions(TaskOptions.defaults().ttl(Duration.ofMinutes(5)).maxRunning(8));
 * }</pre>
 */
public final class TaskOptions {
    /** The members set, as JSON text by name. */
    private final Map<String, String> members;

    private TaskOptions(Map<String, String> members) {
        this.members = members;
    }

    /** @return options keeping every default: a task kept an hour, polled every 500 ms, 10000 kept, 1000 running */
    public static TaskOptions defaults() {
        return new TaskOptions(new LinkedHashMap<>());
    }

    private TaskOptions with(String key, String json) {
        Map<String, String> m = new LinkedHashMap<>(members);
        m.put(key, json);
        return new TaskOptions(m);
    }

    /**
     * @param ttl how long a task is kept after its creation (then {@code tasks/get} answers
     *     -32602); null: no limit
     * @return these options with that TTL
     */
    public TaskOptions ttl(Duration ttl) {
        return with("ttlMs", ttl == null ? "null" : Long.toString(ttl.toMillis()));
    }

    /**
     * @param interval how often clients are asked to poll a task
     * @return these options with that interval
     */
    public TaskOptions pollInterval(Duration interval) {
        return with("pollIntervalMs", Long.toString(interval.toMillis()));
    }

    /**
     * @param max how many tasks are kept at most
     * @return these options with that limit
     */
    public TaskOptions maxTasks(int max) {
        return with("maxTasks", Integer.toString(max));
    }

    /**
     * @param max how many tasks run at once at most
     * @return these options with that limit
     */
    public TaskOptions maxRunning(int max) {
        return with("maxRunning", Integer.toString(max));
    }

    /** The engine's task options (JSON, camelCase; the members set). */
    String toJson() {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, String> e : members.entrySet()) {
            b.append(b.length() > 1 ? "," : "").append(Json.quote(e.getKey())).append(':').append(e.getValue());
        }
        return b.append('}').toString();
    }
}
