package io.xio.kotlin.server

import io.micrometer.context.ContextRegistry
import io.xio.annotation.XioService
import io.xio.kotlin.api.FluxLedger
import io.xio.kotlin.api.Item
import io.xio.kotlin.api.Relay
import io.xio.kotlin.api.Summary
import io.xio.spring.call.XioCallChain
import io.xio.spring.call.XioServerCall
import io.xio.spring.call.XioServerInterceptor
import kotlinx.coroutines.CompletableDeferred
import org.springframework.beans.factory.DisposableBean
import reactor.core.publisher.Flux
import reactor.core.publisher.Mono
import java.util.concurrent.ConcurrentHashMap

/**
 * Makes the call's first argument "the caller" of the call, in a ThreadLocal that context-propagation carries (as it
 * carries Spring Security's context or MDC), for the call's time on the thread; registered while the application runs.
 */
class CallerInterceptor : XioServerInterceptor, DisposableBean {
    init {
        ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, CALLER)
    }

    override fun intercept(call: XioServerCall, chain: XioCallChain): Any? {
        val previous = CALLER.get()
        CALLER.set(call.arguments().firstOrNull()?.toString())
        try {
            return chain.proceed()
        } finally {
            if (previous == null) CALLER.remove() else CALLER.set(previous)
        }
    }

    override fun destroy() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(KEY)
    }

    companion object {
        const val KEY = "io.xio.kotlin.caller"
        val CALLER = ThreadLocal<String>()
    }
}

@XioService("relay")
class RelayService(private val probe: Probe) : Relay {
    private val gates = ConcurrentHashMap<String, CompletableDeferred<Unit>>()

    private fun gate(key: String) = gates.computeIfAbsent(key) { CompletableDeferred() }

    override suspend fun awaitRelease(key: String): String {
        probe.started("relay-$key").complete(Unit)
        gate(key).await()
        val call = XioServerCall.current()
        return "${call?.method()?.name} ${call?.arguments()} caller=${CallerInterceptor.CALLER.get()} " +
            "thread=${Thread.currentThread().name}"
    }

    override suspend fun release(by: String, key: String) {
        // Completing the gate resumes awaitRelease's coroutine; unconfined, it would go on right here, in this call.
        gate(key).complete(Unit)
    }
}

@XioService("ledger")
class FluxLedgerService : FluxLedger {
    override fun total(items: Flux<Item>): Mono<Summary> =
        items.reduce(Summary(0, 0)) { sum, item -> Summary(sum.count + 1, sum.total + item.price) }
}
