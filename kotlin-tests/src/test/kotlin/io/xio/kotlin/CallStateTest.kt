package io.xio.kotlin

import io.xio.kotlin.api.Item
import io.xio.kotlin.api.Summary
import io.xio.kotlin.client.FlowLedgerClient
import io.xio.kotlin.client.RelayClient
import io.xio.kotlin.server.Probe
import io.xio.spring.test.AutoConfigureXioLocalTransport
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.asFlow
import kotlinx.coroutines.future.await
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import java.util.concurrent.TimeUnit

/**
 * A service coroutine resumed by another call runs in its own call's state, not in the one that resumed it; and a
 * Kotlin client's Flow parameter calls a service that takes a Flux.
 */
@SpringBootTest(classes = [KotlinApplication::class])
@AutoConfigureXioLocalTransport
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallStateTest {
    @Autowired
    lateinit var relay: RelayClient

    @Autowired
    lateinit var ledger: FlowLedgerClient

    @Autowired
    lateinit var probe: Probe

    @Test
    fun `a coroutine resumed by another call sees its own call and caller`(): Unit = runBlocking {
        val waiting = async(Dispatchers.Default) { relay.awaitRelease("alice") }
        withTimeout(2_000) { probe.started("relay-alice").await() }
        // Bob's call completes what Alice's coroutine waits for, from inside Bob's call.
        relay.release("bob", "alice")
        val seen = withTimeout(2_000) { waiting.await() }
        assertThat(seen).startsWith("awaitRelease [alice] caller=alice ")
    }

    @Test
    fun `a Kotlin client's Flow parameter streams to a service that takes a Flux`(): Unit = runBlocking {
        val items = (1..4).map { Item("f$it", it) }.asFlow()
        assertThat(ledger.total(items)).isEqualTo(Summary(4, 10))
    }
}
