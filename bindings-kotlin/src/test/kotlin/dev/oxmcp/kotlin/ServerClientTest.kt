package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.examples.main as quickstart
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

class ServerClientTest {
    @Test
    fun `the quickstart prints the tools, the progress and the sum`() {
        val out = ByteArrayOutputStream()
        val saved = System.out
        System.setOut(PrintStream(out, true))
        try {
            quickstart()
        } finally {
            System.setOut(saved)
        }
        val lines = out.toString().lines()
        assertEquals("tools: [add]", lines[0])
        assertEquals("progress: 1.0/2.0 adding", lines[1])
        assertEquals("add: Sum(sum=42)", lines[2])
    }

    @Test
    fun `the README's quickstart is examples-Quickstart-kt`() {
        val readme = File("README.md").readText()
        val example = File("examples/Quickstart.kt").readText().trim()
        assertTrue(example.lines().drop(1).joinToString("\n") in readme, "README.md does not show examples/Quickstart.kt")
    }

    /**
     * A handler reads its server's own resource; a second server mounts a client of the
     * first and serves its tools under a prefix; a middleware there sees every request and
     * answers one itself; a server refuses to mount itself.
     */
    @Test
    fun `a server mounts a client of another and a middleware steers its requests`(): Unit = runBlocking {
        mcpServer("inner") {
            resource("notes://today", "today", mimeType = "text/plain") { _, _ -> "buy milk" }
            tool("today") { _, ctx -> ctx.readResource("notes://today")["contents"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content }
        }.use { inner ->
            Client.http(inner.startHttp(port = 0)).use { link ->
                link.notifyRootsChanged()
                val seen = java.util.concurrent.CopyOnWriteArrayList<String>()
                val outer = mcpServer("outer") {
                    use { request, _, next ->
                        seen.add(request["method"]!!.jsonPrimitive.content)
                        if (request["params"]?.jsonObject?.get("name")?.jsonPrimitive?.content == "whoami") textResult("the middleware") else next(null)
                    }
                }
                val local = mcpServer("local") { tool("hello") { _, _ -> "hi" } }
                outer.use {
                    assertFailsWith<McpException.InvalidInput> { outer.mount("me", outer) }
                    outer.mount("local", local)
                    outer.mountClient("inner", link)
                    Client.http(outer.startHttp(port = 0)).use { client ->
                        assertTrue(client.listTools().any { it["name"]!!.jsonPrimitive.content == "inner_today" })
                        assertEquals("buy milk", client.callTool("inner_today").text())
                        assertEquals("the middleware", client.callTool("whoami").text())
                        assertTrue("tools/list" in seen && "tools/call" in seen, seen.toString())
                        assertEquals("hi", client.callTool("local_hello").text())
                        // A closed server's tools answer no more where it is mounted.
                        local.close()
                        val after = runCatching { client.callTool("local_hello") }
                        assertTrue(after.isFailure || after.getOrNull()?.get("isError")?.jsonPrimitive?.boolean == true, after.toString())
                        // A closed server is refused as such, whoever uses it, and closing again does nothing.
                        assertFailsWith<McpException.Closed> { outer.mount("again", local) }
                        assertFailsWith<McpException.Closed> { local.tool("late") { _, _ -> "x" } }
                        local.close()
                        // So is a closed client (`use` closes it once more).
                        client.close()
                        assertFailsWith<McpException.Closed> { client.listTools() }
                        assertFailsWith<McpException.Closed> { outer.mountClient("gone", client) }
                    }
                }
            }
        }
    }

    /** A forecast a tool returns: a record of Kotlin's own. */
    @Serializable
    data class Forecast(val city: String, val celsius: Int, val unit: String = "C")

    /**
     * A handler's value crosses as its JSON and the engine's one rule makes the result: a
     * `@Serializable` data class is structured content (with its JSON as text, its defaults
     * too), not its `toString()`; a map too; a JSON string one text block of its text; a
     * list of strings one block each; a value with no JSON form its `toString()` text; a
     * number, for a tool with an output schema, also structured content `{"result": 42}`.
     */
    @Test
    fun `a returned data class is structured content`(): Unit = runBlocking {
        class Opaque { override fun toString() = "opaque" }
        mcpServer("values") {
            tool("forecast") { _, _ -> Forecast("Paris", 21) }
            tool("map") { _, _ -> mapOf("city" to "Paris", "days" to listOf(1, 2)) }
            tool("json_string") { _, _ -> JsonPrimitive("plain") }
            tool("list") { _, _ -> listOf("one", "two") }
            tool("opaque") { _, _ -> Opaque() }
            tool("wrapped", outputSchema = buildJsonObject { put("type", "object") }) { _, _ -> 42 }
        }.use { server ->
            Client.http(server.startHttp(port = 0)).use { client ->
                val forecast = client.callTool("forecast")
                val expected = buildJsonObject { put("city", "Paris"); put("celsius", 21); put("unit", "C") }
                assertEquals(expected, forecast["structuredContent"], forecast.toString())
                assertEquals(expected, Json.parseToJsonElement(forecast.text()), forecast.toString())
                val map = client.callTool("map")
                assertEquals("""{"city":"Paris","days":[1,2]}""", map["structuredContent"].toString(), map.toString())
                assertEquals("plain", client.callTool("json_string").text())
                val list = client.callTool("list")
                assertEquals(listOf("one", "two"), list["content"]!!.jsonArray.map { it.jsonObject["text"]!!.jsonPrimitive.content }, list.toString())
                val opaque = client.callTool("opaque")
                assertEquals("opaque", opaque.text())
                assertEquals(null, opaque["structuredContent"], opaque.toString())
                val wrapped = client.callTool("wrapped")
                assertEquals("42", wrapped.text())
                assertEquals(buildJsonObject { put("result", 42) }, wrapped["structuredContent"], wrapped.toString())
            }
        }
    }

    @Test
    fun `a stdio client of the everything server`(): Unit = runBlocking {
        Client.stdio(OXMCP, listOf("everything-server", "--stdio")).use { client ->
            assertTrue(client.listTools().any { it["name"]!!.jsonPrimitive.content == "echo" })
            assertEquals("hi", client.callTool("echo", buildJsonObject { put("text", "hi") }).text())
        }
    }

    @Test
    fun `a client's close suspends, and use closes it also when its block fails`(): Unit = runBlocking {
        // runBlocking has one thread: the ticker runs during close only if close suspends
        // (a close that blocked the thread would let it start only after).
        val client = Client.stdio(OXMCP, listOf("everything-server", "--stdio"))
        var ticks = 0
        val ticker = launch { while (true) { ticks++; yield() } }
        client.close()
        ticker.cancel()
        assertTrue(ticks > 0, "the thread ran other coroutines while the client closed")
        assertFailsWith<McpException.Closed> { client.listTools() }
        client.close() // idempotent

        var used: Client? = null
        assertFailsWith<IllegalStateException> {
            Client.stdio(OXMCP, listOf("everything-server", "--stdio")).use { c ->
                used = c
                error("the block fails")
            }
        }
        assertFailsWith<McpException.Closed> { used!!.listTools() }
    }

    @Test
    fun `skills and task steps of the everything server`(): Unit = runBlocking {
        Client.stdio(OXMCP, listOf("everything-server", "--stdio")).use { client ->
            val refunds = client.listSkills().first { it["frontmatter"]!!.jsonObject["name"]!!.jsonPrimitive.content == "refunds" }
            val uri = refunds["uri"]!!.jsonPrimitive.content
            assertEquals(refunds, client.getSkill(uri))
            val loaded = client.loadSkill(uri, refunds)
            assertTrue(loaded["markdown"]!!.jsonPrimitive.content.contains("Refund within 30 days"), loaded.toString())
            val pdf = client.listSkills().first { it["frontmatter"]!!.jsonObject["name"]!!.jsonPrimitive.content == "pdf-processing" }
            val children = client.readDirectory(pdf["uri"]!!.jsonPrimitive.content.removeSuffix("/SKILL.md"))
            assertTrue(children.any { it["uri"]!!.jsonPrimitive.content.endsWith("/SKILL.md") }, children.toString())
            val markdown = client.readSkillFile(pdf, "SKILL.md").decodeToString()
            assertTrue(markdown.startsWith("---\nname: pdf-processing"), markdown)

            // A tool run as a task, followed to its end; another cancelled.
            fun id(started: JsonObject) = started["task"]!!.jsonObject["taskId"]!!.jsonPrimitive.content
            fun status(task: JsonObject) = task["status"]!!.jsonPrimitive.content
            val quick = id(client.startToolTask("slow_compute", buildJsonObject { put("seconds", 0.2) }))
            var task = client.getTask(quick)
            repeat(200) { if (status(task) == "working") { delay(50); task = client.getTask(quick) } }
            assertEquals("completed", status(task), task.toString())
            val long = id(client.startToolTask("slow_compute", buildJsonObject { put("seconds", 60) }))
            client.cancelTask(long)
            assertEquals("cancelled", status(client.getTask(long)))
            val unknown = assertFailsWith<McpException.Rpc> { client.getTask("no-such-task") }
            assertEquals(-32602L, unknown.code)
        }
    }

    @Test
    fun `a Kotlin server runs tools as tasks and serves skills`(): Unit = runBlocking {
        val cancelled = CompletableDeferred<Unit>()
        val longStarted = CompletableDeferred<Unit>()
        val schema = buildJsonObject { put("type", "object"); putJsonObject("properties") { putJsonObject("ms") { put("type", "integer") } } }
        mcpServer("jobs", tasks = TaskOptions(ttl = 10.seconds, pollInterval = 50.milliseconds)) {
            tool("build", inputSchema = schema, taskSupport = TaskSupport.OPTIONAL) { args, _ ->
                try {
                    if (args["ms"]!!.jsonPrimitive.content.toLong() > 10_000) longStarted.complete(Unit)
                    delay(args["ms"]!!.jsonPrimitive.content.toLong())
                } catch (e: CancellationException) {
                    cancelled.complete(Unit)
                    throw e
                }
                "built"
            }
            tool("only_as_task", taskSupport = TaskSupport.REQUIRED) { _, _ -> "ran" }
            skill("git-workflow", mapOf("SKILL.md" to "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n"))
        }.use { server ->
            Client.http(server.startHttp(port = 0)).use { client ->
                fun status(task: JsonObject) = task["status"]!!.jsonPrimitive.content
                val created = client.startToolTask("build", buildJsonObject { put("ms", 200) })["task"]!!.jsonObject
                assertEquals("50", created["pollIntervalMs"]!!.jsonPrimitive.content)
                assertEquals("10000", created["ttlMs"]!!.jsonPrimitive.content)
                val id = created["taskId"]!!.jsonPrimitive.content
                var task = client.getTask(id)
                repeat(200) { if (status(task) == "working") { delay(25); task = client.getTask(id) } }
                assertEquals("completed", status(task), task.toString())
                assertEquals("built", task["result"]!!.jsonObject["content"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content)
                // A plain call of the same tool answers directly; one only run as a task is refused.
                assertEquals("built", client.callTool("build", buildJsonObject { put("ms", 0) }).text())
                assertEquals(-32021L, assertFailsWith<McpException.Rpc> { client.callTool("only_as_task") }.code)
                // A cancelled task cancels its handler's coroutine.
                val long = client.startToolTask("build", buildJsonObject { put("ms", 60_000) })["task"]!!.jsonObject
                // Cancelled once it runs (a task cancelled before its handler starts never runs it).
                withTimeout(30.seconds) { longStarted.await() }
                client.cancelTask(long["taskId"]!!.jsonPrimitive.content)
                withTimeout(5.seconds) { cancelled.await() }

                val skill = client.listSkills().single()
                assertEquals("git-workflow", skill["frontmatter"]!!.jsonObject["name"]!!.jsonPrimitive.content)
                val loaded = client.loadSkill(skill["uri"]!!.jsonPrimitive.content, skill)
                assertTrue(loaded["markdown"]!!.jsonPrimitive.content.endsWith("Branch from main.\n"), loaded.toString())
            }
        }
        // A skill whose name is not its path's last part is refused when it is added.
        val refused = assertFailsWith<McpException> {
            Server("bad").use { it.skill("other", mapOf("SKILL.md" to "---\nname: git-workflow\ndescription: d\n---\nx\n")) }
        }
        assertTrue("must be its name" in refused.message!!, refused.message)
    }

    @Test
    fun `an escalating tool asks inline, then goes on as a task`(): Unit = runBlocking {
        val steps = java.util.concurrent.CopyOnWriteArrayList<String>()
        val asked = java.util.concurrent.CopyOnWriteArrayList<String>()
        val nameSchema = buildJsonObject { put("type", "object"); putJsonObject("properties") { putJsonObject("name") { put("type", "string") } } }
        mcpServer("escalating") {
            tool("report", taskSupport = TaskSupport.OPTIONAL, escalating = true) { args, ctx ->
                val answer = ctx.elicit("Name?", nameSchema)
                steps += "escalated=${ctx.escalateToTask()}"
                delay(args["ms"]?.jsonPrimitive?.content?.toLong() ?: 200)
                "report for ${answer["content"]!!.jsonObject["name"]!!.jsonPrimitive.content}"
            }
        }.use { server ->
            assertFailsWith<McpException.InvalidInput> { server.tool("plain", escalating = true) { _, _ -> "x" } }
            val options = ClientOptions(elicitation = { params ->
                asked += params["message"]!!.jsonPrimitive.content
                buildJsonObject { put("action", "accept"); putJsonObject("content") { put("name", "Ada") } }
            })
            Client.http(server.startHttp(port = 0), options = options).use { client ->
                // Asked for a task: the question is asked inline, then the client gets the task.
                val task = client.startToolTask("report")["task"]!!.jsonObject
                assertEquals(listOf("Name?"), asked)
                val id = task["taskId"]!!.jsonPrimitive.content
                var got = client.getTask(id)
                repeat(200) { if (got["status"]!!.jsonPrimitive.content == "working") { delay(25); got = client.getTask(id) } }
                assertEquals("completed", got["status"]!!.jsonPrimitive.content, got.toString())
                assertEquals("report for Ada", got["result"]!!.jsonObject["content"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content)
                assertEquals(listOf("escalated=true"), steps)
                // A plain call runs inline to its end.
                assertEquals("report for Ada", client.callTool("report", buildJsonObject { put("ms", 0) }).text())
                assertEquals("escalated=false", steps.last())
                // Called as a task and waited for: each status reaches the callback.
                val statuses = java.util.concurrent.CopyOnWriteArrayList<String>()
                assertEquals("report for Ada", client.callToolAsTask("report", buildJsonObject { put("ms", 50) }) { statuses += it }.text())
                assertEquals("escalated=true", steps.last())
                assertEquals("completed", statuses.last(), statuses.toString())
            }
        }
    }

    @Test
    fun `a host function checks the tokens`(): Unit = runBlocking {
        // A time before 1970 is the host's mistake, said where it is made.
        assertFailsWith<McpException.InvalidInput> { TokenInfo(subject = "alice", expiresAt = -1) }
        val seen = java.util.concurrent.CopyOnWriteArrayList<String>()
        mcpServer("checked") { tool("whoami") { _, ctx -> ctx.auth.toString() } }.use { server ->
            server.verifyTokens { token ->
                seen += token
                if (token == "s3cret") TokenInfo(subject = "alice", clientId = "cli", scopes = listOf("mcp:read")) else null
            }
            val url = server.startHttp(port = 0, auth = HttpAuth("https://as.example.com", scopes = listOf("mcp:read")))
            Client.http(url, headers = mapOf("Authorization" to "Bearer s3cret")).use { c ->
                val who = kotlinx.serialization.json.Json.parseToJsonElement(c.callTool("whoami").text()).jsonObject
                assertEquals("alice", who["subject"]!!.jsonPrimitive.content)
                assertEquals("cli", who["clientId"]!!.jsonPrimitive.content)
                assertEquals(listOf("mcp:read"), who["scopes"]!!.jsonArray.map { it.jsonPrimitive.content })
            }
            assertFailsWith<McpException.Unauthorized> { Client.http(url, headers = mapOf("Authorization" to "Bearer guess")) }
            assertTrue("s3cret" in seen && "guess" in seen, seen.toString())
        }
    }

    /** A POST of [body] to [url] (with [session] as `Mcp-Session-Id`): status, the session header, the body. */
    private fun post(url: String, body: String, session: String? = null): Triple<Int, String?, String> {
        val request = java.net.http.HttpRequest.newBuilder(java.net.URI(url))
            .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .apply { session?.let { header("Mcp-Session-Id", it) } }
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build()
        val response = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
        return Triple(response.statusCode(), response.headers().firstValue("mcp-session-id").orElse(null), response.body())
    }

    @Test
    fun `two servers on one Redis share their sessions`(): Unit = runBlocking {
        val port = java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()).use { it.localPort }
        val redis = ProcessBuilder("redis-server", "--port", "$port", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        try {
            repeat(200) { if (runCatching { java.net.Socket("127.0.0.1", port).close() }.isFailure) delay(25) }
            fun node() = mcpServer("shared") { tool("hi") { _, ctx -> "hi ${ctx.clientInfo?.get("name")?.jsonPrimitive?.content}" } }
            node().use { a ->
                node().use { b ->
                    val urlA = a.startHttp(port = 0, redis = "redis://127.0.0.1:$port")
                    val urlB = b.startHttp(port = 0, redis = "redis://127.0.0.1:$port")
                    val init = """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ada","version":"1"}}}"""
                    val (status, session, _) = post(urlA, init)
                    assertEquals(200, status)
                    assertTrue(session != null)
                    assertEquals(202, post(urlB, """{"jsonrpc":"2.0","method":"notifications/initialized"}""", session).first)
                    // The session opened on A, its call answered by B.
                    val (called, _, body) = post(urlB, """{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hi","arguments":{}}}""", session)
                    assertEquals(200, called)
                    assertTrue("hi ada" in body, body)
                }
            }
        } finally {
            redis.destroy()
            redis.waitFor()
        }
    }

    @Test
    fun `a Kotlin server over stdio, started as a child process`(): Unit = runBlocking {
        val (java, args) = javaCommand("dev.oxmcp.kotlin.examples.stdio.StdioServerKt")
        Client.stdio(java, args).use { client ->
            assertEquals("kotlin-stdio", client.serverInfo["name"]!!.jsonPrimitive.content)
            assertEquals("Hello, Ada!", client.callTool("greet", buildJsonObject { put("name", "Ada") }).text())
        }
    }

    /** A raw HTTP/1.1 POST of `initialize` to [url] with [host] as its `Host`: status and `Content-Type`. */
    private fun rawInitialize(url: String, host: String): Pair<Int, String> {
        val u = java.net.URI(url)
        val body = """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"""
        java.net.Socket(u.host, u.port).use { socket ->
            val request = "POST ${u.path} HTTP/1.1\r\nHost: $host\r\nContent-Type: application/json\r\n" +
                "Accept: application/json, text/event-stream\r\nContent-Length: ${body.toByteArray().size}\r\nConnection: close\r\n\r\n$body"
            socket.getOutputStream().write(request.toByteArray())
            val head = socket.getInputStream().bufferedReader().lineSequence().takeWhile { it.isNotEmpty() }.toList()
            val status = head.first().split(" ")[1].toInt()
            val type = head.firstOrNull { it.lowercase().startsWith("content-type:") }?.substringAfter(":")?.trim() ?: ""
            return status to type
        }
    }

    @Test
    fun `HTTP options - allowed hosts, JSON responses, a session cap`(): Unit = runBlocking {
        mcpServer("options") { tool("hi") { _, _ -> "hi" } }.use { server ->
            val url = server.startHttp(port = 0, jsonResponse = true, allowedHosts = listOf("127.0.0.1", "api.example.com"), maxSessions = 1)
            val port = java.net.URI(url).port
            assertEquals(403, rawInitialize(url, "evil.example:$port").first)
            val (status, type) = rawInitialize(url, "api.example.com")
            assertEquals(200, status)
            assertTrue(type.startsWith("application/json"), type)
            // Two session-era clients, one session kept: the cap closed the idle one.
            Client.http(url, options = ClientOptions(era = "session")).use { a ->
                Client.http(url, options = ClientOptions(era = "session")).use { b ->
                    assertEquals("hi", b.callTool("hi").text())
                    assertEquals(1L, server.sessionCount)
                }
            }
        }
        mcpServer("defaults") { tool("hi") { _, _ -> "hi" } }.use { server ->
            val url = server.startHttp(port = 0)
            val port = java.net.URI(url).port
            assertEquals(403, rawInitialize(url, "api.example.com").first)
            val (status, type) = rawInitialize(url, "127.0.0.1:$port")
            assertEquals(200, status)
            assertTrue(type.startsWith("text/event-stream"), type)
        }
    }

    @Test
    fun `both eras over HTTP`(): Unit = runBlocking {
        mcpServer("eras") { tool("hi") { _, ctx -> "hi ${ctx.clientInfo?.get("name")?.jsonPrimitive?.content}" } }.use { server ->
            val url = server.startHttp(port = 0)
            for (era in listOf("session", "stateless")) {
                Client.http(url, options = ClientOptions(name = era, era = era)).use { client ->
                    assertEquals(era, client.era)
                    assertEquals("hi $era", client.callTool("hi").text())
                }
            }
        }
    }

    @Test
    fun `resources, templates, prompts and completion`(): Unit = runBlocking {
        val server = mcpServer("library") {
            resource("notes://todo", "todo", mimeType = "text/plain") { uri, _ -> "read $uri" }
            resourceTemplate("notes://{name}", "note") { _, vars, _ -> "note ${vars["name"]}" }
            prompt("review", arguments = listOf(PromptArgument("code", required = true))) { args, _ -> "Review ${args["code"]}" }
            prompt("pick", arguments = listOf(PromptArgument("item"))) { args, _ -> "Picked ${args["item"]}" }
            completion { params, _ ->
                val value = params["argument"]!!.jsonObject["value"]!!.jsonPrimitive.content
                when (params["ref"]!!.jsonObject["name"]!!.jsonPrimitive.content) {
                    "pick" -> if (value == "all") (1..150).map { "item$it" } else Completion(listOf("a", "b"), total = 250, hasMore = true)
                    else -> listOf("python", "perl", "rust").filter { it.startsWith(value) }
                }
            }
        }
        server.use {
            Client.http(server.startHttp(port = 0)).use { client ->
                val todo = client.readResource("notes://todo")["contents"]!!.jsonArray[0].jsonObject
                assertEquals("read notes://todo", todo["text"]!!.jsonPrimitive.content)
                assertEquals("text/plain", todo["mimeType"]!!.jsonPrimitive.content)
                val note = client.readResource("notes://shopping")["contents"]!!.jsonArray[0].jsonObject
                assertEquals("note shopping", note["text"]!!.jsonPrimitive.content)
                val prompt = client.getPrompt("review", mapOf("code" to "x = 1"))
                assertEquals("Review x = 1", prompt["messages"]!!.jsonArray[0].jsonObject["content"]!!.jsonObject["text"]!!.jsonPrimitive.content)
                val done = client.complete(buildJsonObject {
                    putJsonObject("ref") { put("type", "ref/prompt"); put("name", "review") }
                    putJsonObject("argument") { put("name", "code"); put("value", "p") }
                })
                assertEquals(listOf("python", "perl"), done["completion"]!!.jsonObject["values"]!!.jsonArray.map { it.jsonPrimitive.content })
                fun complete(value: String) = runBlocking {
                    client.complete(buildJsonObject {
                        putJsonObject("ref") { put("type", "ref/prompt"); put("name", "pick") }
                        putJsonObject("argument") { put("name", "item"); put("value", value) }
                    })["completion"]!!.jsonObject
                }
                // A page of a larger answer, as the handler says; and the engine's 100-value cap.
                val page = complete("")
                assertEquals(listOf("a", "b"), page["values"]!!.jsonArray.map { it.jsonPrimitive.content })
                assertEquals("250", page["total"]!!.jsonPrimitive.content)
                assertEquals(true, page["hasMore"]!!.jsonPrimitive.boolean)
                val capped = complete("all")
                assertEquals(100, capped["values"]!!.jsonArray.size)
                assertEquals("150", capped["total"]!!.jsonPrimitive.content)
                assertEquals(true, capped["hasMore"]!!.jsonPrimitive.boolean)
            }
        }
    }

    @Test
    fun `cancelling the calling coroutine cancels the handler's coroutine`(): Unit = runBlocking {
        val started = CompletableDeferred<Unit>()
        val cancelled = CompletableDeferred<Boolean>()
        val logged = CompletableDeferred<String>()
        mcpServer("waits") {
            // A middleware in between changes nothing: the handler still settles as it would.
            use { _, _, next -> next(null) }
            tool("wait") { _, ctx ->
                started.complete(Unit)
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    // Logged on the way out: it still reaches the client.
                    ctx.log("info", "wait cancelled", "wait")
                    cancelled.complete(true)
                    throw e
                }
            }
        }.use { server ->
            // The session era: in the stateless one over HTTP, the cancel closes the very
            // response stream a request's log travels on.
            val options = ClientOptions(era = "session", onNotification = { method, params ->
                if (method == "notifications/message") logged.complete(params["data"]!!.jsonPrimitive.content)
            })
            Client.http(server.startHttp(port = 0), options = options).use { client ->
                client.setLogLevel("debug")
                val result = withTimeoutOrNull(2.seconds) {
                    client.callTool("wait")
                }
                assertEquals(null, result)
                assertTrue(started.isCompleted, "the handler never started")
                assertTrue(withTimeout(10.seconds) { cancelled.await() })
                assertEquals("wait cancelled", withTimeout(10.seconds) { logged.await() })
                // The connection goes on.
                client.ping()
            }
        }
    }

    @Test
    fun `the server's cancel reaches the client's sampling coroutine, in both eras`(): Unit = runBlocking {
        for (era in listOf("session", "stateless")) {
            val asked = CompletableDeferred<JsonObject>()
            val samplingCancelled = CompletableDeferred<Boolean>()
            mcpServer("asks") {
                tool("ask") { _, ctx -> ctx.sample("What is 2+2?", maxTokens = 5)["content"].toString() }
            }.use { server ->
                val options = ClientOptions(era = era, sampling = { params ->
                    asked.complete(params)
                    try {
                        awaitCancellation()
                    } catch (e: CancellationException) {
                        samplingCancelled.complete(true)
                        throw e
                    }
                })
                Client.http(server.startHttp(port = 0), options = options).use { client ->
                    assertEquals(era, client.era)
                    assertEquals(null, withTimeoutOrNull(2.seconds) { client.callTool("ask") })
                    assertEquals(5, asked.await()["maxTokens"]!!.jsonPrimitive.content.toInt())
                    // The client gave up the tool call: the tool's coroutine is cancelled, so
                    // its sampling request is cancelled at the client (session era), or the
                    // client stops waiting for its own handler (stateless era): either way
                    // the sampling coroutine is cancelled.
                    assertTrue(withTimeout(10.seconds) { samplingCancelled.await() }, era)
                }
            }
        }
    }

    @Test
    fun `sampling, elicitation and roots answered by the client`(): Unit = runBlocking {
        mcpServer("asks") {
            tool("all") { _, ctx ->
                val sampled = ctx.sample("hi")["content"]!!.jsonObject["text"]!!.jsonPrimitive.content
                val elicited = ctx.elicit("Your name?", strings("name"))["content"]!!.jsonObject["name"]!!.jsonPrimitive.content
                val roots = ctx.listRoots().map { it["uri"]!!.jsonPrimitive.content }
                "$sampled $elicited $roots"
            }
        }.use { server ->
            val options = ClientOptions(
                sampling = { buildJsonObject {
                    put("role", "assistant"); put("model", "m")
                    putJsonObject("content") { put("type", "text"); put("text", "sampled") }
                } },
                elicitation = { buildJsonObject { put("action", "accept"); putJsonObject("content") { put("name", "Ada") } } },
                roots = { listOf(buildJsonObject { put("uri", "file:///work"); put("name", "work") }) },
            )
            Client.http(server.startHttp(port = 0), options = ClientOptions(era = "session", sampling = options.sampling,
                elicitation = options.elicitation, roots = options.roots)).use { client ->
                assertEquals("sampled Ada [file:///work]", client.callTool("all").text())
            }
        }
    }

    @Test
    fun `errors map to the McpException hierarchy`(): Unit = runBlocking {
        // The mapping covers exactly the engine's kinds.
        val engine = dev.oxmcp.kotlin.ffi.errorKinds().lines().filter { it.isNotBlank() }
            .associate { line -> line.substringBefore(' ').toInt() to line.substringAfter(' ') }
        assertEquals(engine, McpException.KINDS)
        mcpServer("fails") {
            tool("boom") { _, _ -> error("it broke") }
            tool("refuse") { _, _ -> throw McpException.Rpc(-32001, "not today", """{"why":"closed"}""") }
            tool("slow") { _, _ -> awaitCancellation() }
        }.use { server ->
            Client.http(server.startHttp(port = 0)).use { client ->
                val boom = client.callTool("boom")
                assertTrue(boom["isError"]!!.jsonPrimitive.boolean)
                assertTrue("it broke" in boom.text())
                val refused = assertFailsWith<McpException.Rpc> { client.callTool("refuse") }
                assertEquals(-32001L, refused.code)
                assertEquals("not today", refused.message)
                assertEquals("""{"why":"closed"}""", refused.data)
                assertFailsWith<McpException.Timeout> { client.callTool("slow", timeout = 200.milliseconds) }
                assertFailsWith<McpException.Rpc> { client.callTool("missing") }
            }
            assertFailsWith<McpException.InvalidInput> { server.tool("bad", inputSchema = buildJsonObject { put("type", 12) }) { _, _ -> "" } }
        }
        assertFailsWith<McpException.Transport> { Client.stdio("/nonexistent/server") }
        Unit
    }
}
