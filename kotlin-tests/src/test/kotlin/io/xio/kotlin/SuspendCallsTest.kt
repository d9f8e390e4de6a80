package io.xio.kotlin

import io.xio.engine.XioTimeoutException
import io.xio.kotlin.api.Item
import io.xio.kotlin.api.ItemMissingException
import io.xio.kotlin.client.CatalogClient
import io.xio.kotlin.server.Probe
import io.xio.spring.client.XioRemoteException
import io.xio.spring.error.XioErrorCode
import io.xio.spring.test.AutoConfigureXioLocalTransport
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
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
 * Suspend functions of an @XioClient interface calling those of an @XioService: values, null, Unit, generic results,
 * exceptions as a Java caller gets them, cancellation of the caller's coroutine reaching the service, and the
 * method's deadline.
 */
@SpringBootTest(classes = [KotlinApplication::class])
@AutoConfigureXioLocalTransport
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuspendCallsTest {
    @Autowired
    lateinit var catalog: CatalogClient

    @Autowired
    lateinit var probe: Probe

    @Test
    fun `a suspend call resumes its caller with the service's value`(): Unit = runBlocking {
        assertThat(catalog.item("abc")).isEqualTo(Item("abc", 3))
        assertThat(catalog.listed(3)).containsExactly(Item("l0", 0), Item("l1", 1), Item("l2", 2))
    }

    @Test
    fun `the call is current in the service as its function starts`(): Unit = runBlocking {
        assertThat(catalog.calledAs()).isEqualTo("calledAs")
    }

    @Test
    fun `a suspend call answers null and Unit as Kotlin expects them`(): Unit = runBlocking {
        assertThat(catalog.find("none")).isNull()
        assertThat(catalog.find("one")).isEqualTo(Item("one", 0))
        val unit: Any = catalog.touch("touched-1")
        assertThat(unit).isSameAs(Unit)
        assertThat(probe.touched).contains("touched-1")
    }

    @Test
    fun `an exception a suspend service throws reaches the caller as a Java caller gets it`(): Unit = runBlocking {
        val suspended = runCatching { catalog.fail("no such size") }.exceptionOrNull()
        val plain = runCatching { catalog.failPlain("no such size") }.exceptionOrNull()
        assertThat(suspended).isInstanceOf(XioRemoteException::class.java)
        assertThat(plain).isInstanceOf(XioRemoteException::class.java)
        suspended as XioRemoteException
        plain as XioRemoteException
        // Mapped by the service's @XioExceptionHandler whether the method suspended or not.
        assertThat(suspended.code()).isEqualTo(XioErrorCode.INVALID_ARGUMENT).isEqualTo(plain.code())
        assertThat(suspended.remoteType()).isEqualTo(plain.remoteType())
        assertThat(suspended.remoteMessage()).isEqualTo("bad size: no such size").isEqualTo(plain.remoteMessage())

        // Unmapped, it is the UNKNOWN failure any unmapped exception is.
        val unmapped = runCatching { catalog.failUnmapped("state") }.exceptionOrNull()
        assertThat(unmapped).isInstanceOf(XioRemoteException::class.java)
        assertThat((unmapped as XioRemoteException).code()).isEqualTo(XioErrorCode.UNKNOWN)

        // A declared type (Kotlin's @Throws) is kept by the service and rebuilt by the client, as for Java's throws.
        val missing = runCatching { catalog.missing("x") }.exceptionOrNull()
        assertThat(missing).isInstanceOf(ItemMissingException::class.java).hasMessageContaining("no item x")
    }

    @Test
    fun `cancelling the calling coroutine cancels the call on the server`(): Unit = runBlocking {
        val call = async(Dispatchers.Default) { catalog.hang("hang-1") }
        withTimeout(WAIT) { probe.started("hang-1").await() }
        call.cancelAndJoin()
        assertThat(call.isCancelled).isTrue()
        // The service's coroutine itself was cancelled: the cancel went over the wire.
        val why = withTimeout(WAIT) { probe.cancelled("hang-1").await() }
        assertThat(why).isInstanceOf(CancellationException::class.java)
    }

    @Test
    fun `a suspend call past its deadline fails with a timeout`(): Unit = runBlocking {
        val failure = runCatching { catalog.slow("slow-1") }.exceptionOrNull()
        assertThat(failure).isInstanceOf(XioTimeoutException::class.java)
        assertThat(probe.started("slow-1")).isCompleted()
        // The caller's deadline cancels the service's coroutine too.
        val why = withTimeout(WAIT) { probe.cancelled("slow-1").await() }
        assertThat(why).isInstanceOf(CancellationException::class.java)
    }

    private companion object {
        const val WAIT = 2_000L
    }
}
