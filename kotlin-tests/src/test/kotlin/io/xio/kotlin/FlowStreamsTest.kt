package io.xio.kotlin

import io.xio.engine.XioTimeoutException
import io.xio.kotlin.api.Item
import io.xio.kotlin.api.Summary
import io.xio.kotlin.client.CatalogClient
import io.xio.kotlin.server.Probe
import io.xio.spring.test.AutoConfigureXioLocalTransport
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.flow.asFlow
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.emptyFlow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.onCompletion
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * Flows in an @XioClient / @XioService interface: a Flow result is a server stream, a Flow parameter a client stream
 * (with a suspend function's one answer) and both a bidirectional stream; a collector that stops, or whose coroutine is
 * cancelled, cancels the service's Flow; a stream's deadline cancels it too.
 */
@SpringBootTest(classes = [KotlinApplication::class])
@AutoConfigureXioLocalTransport
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlowStreamsTest {
    @Autowired
    lateinit var catalog: CatalogClient

    @Autowired
    lateinit var probe: Probe

    @Test
    fun `a Flow result is the server's stream, whole and in order`(): Unit = runBlocking {
        val items = catalog.items(5_000).toList()
        assertThat(items).hasSize(5_000)
        assertThat(items.map { it.price }).isEqualTo((0 until 5_000).toList())
        assertThat(catalog.items(0).toList()).isEmpty()
        // Cold: each collection is a stream of its own.
        assertThat(catalog.items(3).toList()).extracting<String> { it.id }.containsExactly("i0", "i1", "i2")
        assertThat(catalog.itemsLater(2).toList()).containsExactly(Item("i0", 0), Item("i1", 1))
    }

    @Test
    fun `a Flow parameter is the client's stream, answered once by a suspend function`(): Unit = runBlocking {
        val sent = (1..2_000).asFlow().map { Item("s$it", 2) }
        assertThat(catalog.total(sent)).isEqualTo(Summary(2_000, 4_000))
        assertThat(catalog.total(emptyFlow())).isEqualTo(Summary(0, 0))
    }

    @Test
    fun `a Flow parameter and a Flow result make a bidirectional stream`(): Unit = runBlocking {
        val sent = (0 until 1_000).asFlow().map { Item("b$it", it) }
        val back = catalog.doubled(sent).toList()
        assertThat(back).hasSize(1_000)
        assertThat(back.map { it.price }).isEqualTo((0 until 1_000).map { it * 2 })
    }

    @Test
    fun `a collector that takes what it needs cancels the service's Flow`(): Unit = runBlocking {
        assertThat(catalog.endless("take-1").take(10).toList()).hasSize(10)
        val why = withTimeout(WAIT) { probe.cancelled("take-1").await() }
        assertThat(why).isInstanceOf(CancellationException::class.java)
    }

    @Test
    fun `cancelling the collecting coroutine cancels the stream on the server`(): Unit = runBlocking {
        val received = AtomicInteger()
        val collecting = launch(Dispatchers.Default) {
            catalog.endless("cancel-1").collect { received.incrementAndGet() }
        }
        withTimeout(WAIT) { probe.started("cancel-1").await() }
        collecting.cancelAndJoin()
        val why = withTimeout(WAIT) { probe.cancelled("cancel-1").await() }
        assertThat(why).isInstanceOf(CancellationException::class.java)
        assertThat(collecting.isCancelled).isTrue()
    }

    @Test
    fun `cancelling a caller that streams a Flow cancels the service and stops the caller's Flow`(): Unit = runBlocking {
        val sentEnded = CompletableFuture<Throwable?>()
        val endless = flow {
            var n = 0
            while (true) {
                emit(Item("up", n++))
            }
        }.onCompletion { sentEnded.complete(it) }
        val call = launch(Dispatchers.Default) { catalog.totalWatched("upload-1", endless) }
        withTimeout(WAIT) { probe.started("upload-1").await() }
        call.cancelAndJoin()
        val why = withTimeout(WAIT) { probe.cancelled("upload-1").await() }
        assertThat(why).isInstanceOf(CancellationException::class.java)
        // The caller's Flow is no longer collected: it ended cancelled.
        assertThat(withTimeout(WAIT) { sentEnded.await() }).isInstanceOf(CancellationException::class.java)
    }

    @Test
    fun `a stream past its deadline fails with a timeout and the service's Flow is cancelled`(): Unit = runBlocking {
        val received = AtomicInteger()
        val failure = runCatching { catalog.ticking("tick-1").collect { received.incrementAndGet() } }
            .exceptionOrNull()
        assertThat(failure).isInstanceOf(XioTimeoutException::class.java)
        assertThat(received.get()).isPositive()
        val why = withTimeout(WAIT) { probe.cancelled("tick-1").await() }
        assertThat(why).isInstanceOf(CancellationException::class.java)
    }

    private companion object {
        const val WAIT = 2_000L
    }
}
