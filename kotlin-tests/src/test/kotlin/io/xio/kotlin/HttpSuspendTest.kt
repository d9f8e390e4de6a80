package io.xio.kotlin

import io.xio.spring.test.AutoConfigureXioLocalTransport
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.web.server.LocalServerPort
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.TimeUnit

/** A suspend function of a service called over HTTP/JSON: through its coroutine, never without its Continuation. */
@SpringBootTest(
    classes = [KotlinApplication::class],
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = ["spring.main.web-application-type=servlet", "server.address=127.0.0.1", "xio.http.enabled=true"],
)
@AutoConfigureXioLocalTransport
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpSuspendTest {
    @LocalServerPort
    var port: Int = 0

    // Java 17's HttpClient has no close(); one for the class, its threads idle between the two calls.
    private val http = HttpClient.newHttpClient()

    private fun post(path: String, body: String): HttpResponse<String> =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:$port/xio/catalog/$path"))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString(),
        )

    @Test
    fun `a suspend function answers an HTTP call with its value`() {
        val answer = post("item", """["abcd"]""")
        assertThat(answer.statusCode()).isEqualTo(200)
        assertThat(answer.body()).contains("\"id\":\"abcd\"").contains("\"price\":4")
    }

    @Test
    fun `a suspend function's exception is the HTTP problem its handler maps it to`() {
        val answer = post("fail", """["no such size"]""")
        assertThat(answer.statusCode()).isEqualTo(400)
        assertThat(answer.body()).contains("bad size: no such size")
    }
}
