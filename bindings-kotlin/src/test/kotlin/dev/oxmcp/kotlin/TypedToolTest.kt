package dev.oxmcp.kotlin

import kotlinx.coroutines.runBlocking
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject
import kotlinx.serialization.serializer
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/**
 * Tools from `@Serializable` classes: the input schema derived from the argument class's
 * descriptor, the arguments decoded into it, the output schema from the returned class.
 */
class TypedToolTest {
    @Serializable
    enum class Sort { @SerialName("newest") NEWEST, @SerialName("oldest") OLDEST }

    @Serializable
    data class Range(val from: Int, val to: Int)

    @Serializable
    data class Search(
        @McpDescription("text to look for") val query: String,
        val sort: Sort = Sort.NEWEST,
        val limit: Int? = null,
        val range: Range? = null,
        val tags: List<String> = emptyList(),
    )

    @Serializable
    data class Hits(val names: List<String>, val sort: Sort, val limit: Int?, val span: Int)

    @Serializable
    data class Node(val name: String, val children: List<Node> = emptyList())

    private val searchSchema = Json.parseToJsonElement(
        """{"type":"object","properties":{
             "query":{"type":"string","description":"text to look for"},
             "sort":{"type":"string","enum":["newest","oldest"]},
             "limit":{"type":["integer","null"]},
             "range":{"type":["object","null"],"properties":{"from":{"type":"integer"},"to":{"type":"integer"}},"required":["from","to"]},
             "tags":{"type":"array","items":{"type":"string"}}},
           "required":["query"]}""",
    ).jsonObject

    @Test
    fun `a data class is the tool's input schema and its arguments`(): Unit = runBlocking {
        mcpServer("typed") {
            tool<Search, Hits>("search", "Search the notes") { args, _ ->
                Hits(listOf(args.query), args.sort, args.limit, args.range?.let { it.to - it.from } ?: -1)
            }
        }.use { server ->
            Client.http(server.startHttp(port = 0)).use { client ->
                val tool = client.listTools().single()
                assertEquals(searchSchema, tool["inputSchema"], tool.toString())
                val hits = tool["outputSchema"]!!.jsonObject
                // The returned class's schema; its nullable `limit` is not required.
                assertEquals("""["names","sort","span"]""", hits["required"].toString(), hits.toString())

                // Defaults applied, an absent nullable null.
                val plain = client.callTool("search", buildJsonObject { put("query", "milk") })
                assertEquals("""{"names":["milk"],"sort":"newest","limit":null,"span":-1}""", plain["structuredContent"].toString(), plain.toString())
                // Every field given: the enum by its serial name, the nested class.
                val full = client.callTool("search", buildJsonObject {
                    put("query", "tea"); put("sort", "oldest"); put("limit", 3)
                    putJsonObject("range") { put("from", 2); put("to", 7) }
                })
                assertEquals("""{"names":["tea"],"sort":"oldest","limit":3,"span":5}""", full["structuredContent"].toString(), full.toString())
                // What the schema refuses never reaches the handler.
                val bad = client.callTool("search", buildJsonObject { put("query", "x"); put("sort", "sideways") })
                assertTrue(bad["isError"]!!.jsonPrimitive.boolean, bad.toString())
            }
        }
    }

    @Test
    fun `what no schema describes is refused by name`() {
        val e = assertFailsWith<IllegalArgumentException> { schemaOf(serializer<Node>().descriptor) }
        assertTrue(e.message!!.contains("Node refers to itself"), e.message)
        assertEquals(null, outputSchemaOf(kotlin.reflect.typeOf<String>()))
        assertEquals(null, outputSchemaOf(kotlin.reflect.typeOf<Unit>()))
        assertEquals(null, outputSchemaOf(kotlin.reflect.typeOf<Hits?>()))
    }
}
