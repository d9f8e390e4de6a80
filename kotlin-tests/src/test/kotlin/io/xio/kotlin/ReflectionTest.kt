package io.xio.kotlin

import io.xio.spring.reflection.XioReflectionService
import io.xio.spring.test.AutoConfigureXioLocalTransport
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import tools.jackson.databind.JsonNode
import tools.jackson.databind.json.JsonMapper

/**
 * The server's reflection describes Kotlin methods as callers see them: a suspend function's parameters without the
 * Continuation the compiler adds, named as declared, its result the declared return type (none for Unit), and Flows as
 * the streams they are.
 */
@SpringBootTest(classes = [KotlinApplication::class])
@AutoConfigureXioLocalTransport
class ReflectionTest {
    @Autowired
    lateinit var reflection: XioReflectionService

    private fun method(name: String): JsonNode {
        val buffer = reflection.describe("catalog")!!
        val bytes = ByteArray(buffer.remaining()).also { buffer.get(it) }
        val described = JsonMapper().readTree(bytes)
        return elements(described["methods"]).single { it["name"].asString() == name }
    }

    /** The nodes of a JSON array (JsonNode's own map applies to the node itself). */
    private fun elements(array: JsonNode): List<JsonNode> = (array as Iterable<JsonNode>).toList()

    private fun parameterNames(method: JsonNode) = elements(method["parameters"]).map { it["name"].asString() }

    @Test
    fun `a suspend function is described by its declared parameters and result`() {
        val item = method("item")
        assertThat(item["kind"].asString()).isEqualTo("suspend")
        assertThat(parameterNames(item)).isEqualTo(listOf("id"))
        assertThat(item["parameters"][0]["schema"]["type"].asString()).isEqualTo("string")
        assertThat(item["returns"]["\$ref"].asString()).isEqualTo("#/\$defs/Item")
        assertThat(item["wireName"].asString()).isEqualTo("item(String)")

        val listed = method("listed")
        assertThat(listed["returns"]["type"].asString()).isEqualTo("array")
        assertThat(listed["returns"]["items"]["\$ref"].asString()).isEqualTo("#/\$defs/Item")
        assertThat(method("touch")["returns"].isNull).isTrue()
        assertThat(method("slow")["timeout"].asString()).isEqualTo("PT0.3S")
    }

    @Test
    fun `Flows are described as the streams they are`() {
        assertThat(method("items")["kind"].asString()).isEqualTo("server-stream")
        assertThat(method("items")["returns"]["\$ref"].asString()).isEqualTo("#/\$defs/Item")
        assertThat(method("itemsLater")["kind"].asString()).isEqualTo("server-stream")
        val total = method("total")
        assertThat(total["kind"].asString()).isEqualTo("client-stream")
        assertThat(parameterNames(total)).isEqualTo(listOf("items"))
        assertThat(total["parameters"][0]["schema"]["\$ref"].asString()).isEqualTo("#/\$defs/Item")
        assertThat(total["returns"]["\$ref"].asString()).isEqualTo("#/\$defs/Summary")
        assertThat(method("doubled")["kind"].asString()).isEqualTo("bidi-stream")
        assertThat(method("failPlain")["kind"].asString()).isEqualTo("plain")
    }
}
