package dev.oxmcp.kotlin.scenarios

import dev.oxmcp.kotlin.McpException
import dev.oxmcp.kotlin.PromptArgument
import dev.oxmcp.kotlin.Server
import dev.oxmcp.kotlin.TaskSupport
import dev.oxmcp.kotlin.mcpServer
import dev.oxmcp.kotlin.strings
import dev.oxmcp.kotlin.textResult
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray

// The shared scenario server (tests/scenarios/README.md, its `server` section), written
// with the public Kotlin API, never by reading the JSON. ScenariosTest starts it as a child
// JVM and speaks to it over stdio.

private val OBJECT = buildJsonObject { put("type", "object") }

/** What `shape_object` returns: a record of Kotlin's own. */
@Serializable
private data class City(val city: String)

private fun JsonObject.string(name: String): String? = this[name]?.jsonPrimitive?.content

fun scenarioServer(): Server {
    lateinit var server: Server
    server = mcpServer("scenario-server", "1.0.0") {
        tool("echo", "Answers its text.", buildJsonObject {
            put("type", "object")
            put("properties", strings("text")["properties"]!!)
            putJsonArray("required") { add(kotlinx.serialization.json.JsonPrimitive("text")) }
        }) { args, _ -> args.string("text") }
        tool("gone", "Registered, then removed before serving.", OBJECT) { _, _ -> "gone should not be callable" }
    }
    server.prompt("gone") { _, _ -> "removed before serving" }
    server.resource("fixed://gone", "gone", mimeType = "text/plain") { _, _ -> "removed before serving" }
    // Removed before serving; staged_removal answers what the three removals said.
    val removed = listOf(server.removeTool("gone"), server.removePrompt("gone"), server.removeResource("fixed://gone"))
    server.tool("staged_removal", "What the three removals answered before serving, joined with commas.", OBJECT) { _, _ ->
        removed.joinToString(",")
    }
    server.tool("read_own", "Reads the server's own resource fixed://note through its request's context; answers its text.", OBJECT) { _, ctx ->
        ctx.readResource("fixed://note")["contents"]!!.jsonArray[0].jsonObject.string("text") ?: "(no text)"
    }
    server.tool("protocol_version", "Answers the protocol version its request's context names.", OBJECT) { _, ctx ->
        ctx.info.string("protocolVersion") ?: "none"
    }
    server.tool("session_count", "How many clients the server has connected, as the host's session count says.", OBJECT) { _, _ ->
        server.sessionCount.toString()
    }
    // No maxTokens: the engine fills in the protocol default.
    server.tool("ask_sampling", "Asks the client's model (no maxTokens given); answers \"sampled: \" + the model's text.",
        strings("prompt")) { args, ctx ->
        val result = ctx.sample(args.string("prompt") ?: "")
        "sampled: " + result["content"]!!.jsonObject.string("text")
    }
    server.tool("ask_elicitation", "Asks the user for a name; answers \"elicited: \" + action + \" \" + content.name.", OBJECT) { _, ctx ->
        val result = ctx.elicit("Your name?", buildJsonObject {
            put("type", "object")
            put("properties", strings("name")["properties"]!!)
            putJsonArray("required") { add(kotlinx.serialization.json.JsonPrimitive("name")) }
        })
        "elicited: ${result.string("action")} ${result["content"]?.jsonObject?.string("name")}"
    }
    server.tool(
        "escalate", "Escalating: asks a name inline, goes on as a task if it may, then asks the model.", OBJECT,
        taskSupport = TaskSupport.OPTIONAL, escalating = true,
    ) { _, ctx ->
        val answer = ctx.elicit("Your name?", buildJsonObject {
            put("type", "object")
            put("properties", strings("name")["properties"]!!)
            putJsonArray("required") { add(kotlinx.serialization.json.JsonPrimitive("name")) }
        })
        val became = ctx.escalateToTask()
        val reply = ctx.sample("after")
        "escalated: ${answer["content"]?.jsonObject?.string("name")} $became ${reply["content"]!!.jsonObject.string("text")}"
    }
    server.tool("ask_roots", "Lists the client's roots; answers \"roots: \" + the URIs joined by \",\".", OBJECT) { _, ctx ->
        "roots: " + ctx.listRoots().joinToString(",") { it.string("uri") ?: "" }
    }
    server.tool("fail_rpc", "Fails with JSON-RPC error -32042 \"custom failure\" and data {\"why\": \"scenario\"}.", OBJECT) { _, _ ->
        throw McpException.Rpc(-32042, "custom failure", buildJsonObject { put("why", "scenario") }.toString())
    }
    // The engine refuses an escalating tool no client may run as a task: what the host's API
    // raised for it is kept and answered.
    val refused = try {
        server.tool("never", inputSchema = OBJECT, escalating = true) { _, _ -> "never should not be callable" }
        "accepted"
    } catch (e: McpException) {
        McpException.KINDS[e.kind] ?: "unknown kind ${e.kind}"
    }
    server.tool(
        "refused_escalation",
        "Before serving, the host registered the escalating tool \"never\" with no taskSupport (its own options for it) and " +
            "kept what happened: answers the engine's error kind name its error reported (\"invalid_input\"), or \"accepted\".",
        OBJECT,
    ) { _, _ -> refused }
    server.tool("fail_plain", "Fails with a plain host error \"plain failure\" (an isError result).", OBJECT) { _, _ ->
        throw IllegalStateException("plain failure")
    }
    // Kotlin's own values: what each becomes is the engine's one rule, not the binding's.
    server.tool("shape_text", "Returns the host's string \"plain\" (the engine makes it one text block).", OBJECT) { _, _ -> "plain" }
    server.tool("shape_object", "Returns the host's map, object or record {\"city\": \"Paris\"} (structured content, and its JSON as text).", OBJECT) { _, _ ->
        City("Paris")
    }
    server.tool("shape_whole", "Returns a whole result, in the host's own result type where it has one: one text block \"whole\" and isError true (taken as it is).", OBJECT) { _, _ ->
        textResult("whole", isError = true)
    }
    server.tool("shape_list", "Returns the host's list of strings [\"one\", \"two\"] (one text block each).", OBJECT) { _, _ -> listOf("one", "two") }
    server.tool("shape_number", "Returns the host's number 42 (its JSON text).", OBJECT) { _, _ -> 42 }
    server.tool("shape_nothing", "Returns nothing: the host's null, None, undefined, void or Unit (no content).", OBJECT) { _, _ -> Unit }
    server.resource("fixed://note", "note", mimeType = "text/plain") { _, _ -> "a note" }
    // The handler uses both the URI and the variable.
    server.resourceTemplate("greet://{name}", "greeting", mimeType = "text/plain") { uri, vars, _ -> "hello ${vars["name"]} from $uri" }
    server.prompt("greet", arguments = listOf(PromptArgument("name", required = true))) { args, _ -> "Hello, ${args["name"]}!" }
    // All 150 values that match: the engine caps what it sends.
    server.completion { params, _ ->
        val prefix = params["argument"]?.jsonObject?.string("value") ?: ""
        (0 until 150).map { "n%03d".format(it) }.filter { it.startsWith(prefix) }
    }
    // Changes one request's params on their way, answers another itself, holds a setLevel, lets
    // the rest go on.
    server.use { request, _, next ->
        val params = request["params"]?.jsonObject
        val call = request.string("method") == "tools/call"
        when {
            call && params?.string("name") == "echo" && params["arguments"]?.jsonObject?.string("text") == "through middleware" ->
                next(buildJsonObject {
                    put("name", "echo")
                    put("arguments", buildJsonObject { put("text", "changed by the middleware") })
                })
            call && params?.string("name") == "answered_by_middleware" -> textResult("answered by the middleware")
            // Held 2 s, so a setLevel with a shorter timeout times out.
            request.string("method") == "logging/setLevel" -> {
                delay(2000)
                next(null)
            }
            else -> next(null)
        }
    }
    val sub = mcpServer("sub-server", "1.0.0") {
        tool("hello", "Answers \"hello from the mounted server\".", OBJECT) { _, _ -> "hello from the mounted server" }
    }
    server.mount("sub", sub)
    return server
}

/** Serves one client on stdin/stdout until stdin closes. */
fun main() = runBlocking {
    scenarioServer().use { it.serveStdio() }
}
