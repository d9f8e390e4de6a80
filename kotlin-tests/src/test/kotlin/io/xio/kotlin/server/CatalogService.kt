package io.xio.kotlin.server

import io.xio.annotation.XioExceptionHandler
import io.xio.annotation.XioService
import io.xio.kotlin.api.Catalog
import io.xio.kotlin.api.Item
import io.xio.kotlin.api.ItemMissingException
import io.xio.kotlin.api.Summary
import io.xio.spring.call.XioServerCall
import io.xio.spring.error.XioError
import io.xio.spring.error.XioErrorCode
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.fold
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.yield
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CompletableFuture
import kotlin.coroutines.cancellation.CancellationException

/** What the service saw, by id: that a call or stream began, and that it was cancelled (with what). */
class Probe {
    private val started = ConcurrentHashMap<String, CompletableFuture<Unit>>()
    private val cancelled = ConcurrentHashMap<String, CompletableFuture<Throwable>>()
    val touched: MutableSet<String> = ConcurrentHashMap.newKeySet()

    fun started(id: String): CompletableFuture<Unit> = started.computeIfAbsent(id) { CompletableFuture() }

    fun cancelled(id: String): CompletableFuture<Throwable> = cancelled.computeIfAbsent(id) { CompletableFuture() }
}

@XioService("catalog")
class CatalogService(private val probe: Probe) : Catalog {
    override suspend fun item(id: String): Item {
        delay(1) // suspends for real: the answer comes from another thread
        return Item(id, id.length)
    }

    override suspend fun find(id: String): Item? = if (id == "none") null else Item(id, 0)

    override suspend fun touch(id: String) {
        yield()
        probe.touched.add(id)
    }

    override suspend fun listed(count: Int): List<Item> = List(count) { Item("l$it", it) }

    override suspend fun calledAs(): String {
        val current = XioServerCall.current()?.method()?.name ?: "none"
        delay(1)
        return current
    }

    override suspend fun fail(why: String): Item {
        delay(1)
        throw IllegalArgumentException(why)
    }

    override fun failPlain(why: String): Item = throw IllegalArgumentException(why)

    override suspend fun missing(id: String): Item = throw ItemMissingException("no item $id")

    override suspend fun failUnmapped(why: String): Item {
        delay(1)
        throw IllegalStateException(why)
    }

    @XioExceptionHandler
    fun invalid(e: IllegalArgumentException): XioError =
        XioError.of(XioErrorCode.INVALID_ARGUMENT, "bad size: ${e.message}")

    override suspend fun hang(id: String): Item = untilCancelled(id)

    override suspend fun slow(id: String): Item = untilCancelled(id)

    private suspend fun untilCancelled(id: String): Nothing {
        probe.started(id).complete(Unit)
        try {
            awaitCancellation()
        } catch (e: CancellationException) {
            probe.cancelled(id).complete(e)
            throw e
        }
    }

    override fun items(count: Int): Flow<Item> = flow {
        repeat(count) { emit(Item("i$it", it)) }
    }

    override suspend fun itemsLater(count: Int): Flow<Item> {
        delay(1)
        return items(count)
    }

    override suspend fun total(items: Flow<Item>): Summary =
        items.fold(Summary(0, 0)) { sum, item -> Summary(sum.count + 1, sum.total + item.price) }

    override suspend fun totalWatched(id: String, items: Flow<Item>): Summary {
        try {
            // Started once the first item arrived: the client's Flow is collected by then.
            return total(items.onEach { probe.started(id).complete(Unit) })
        } catch (e: CancellationException) {
            probe.cancelled(id).complete(e)
            throw e
        }
    }

    override fun doubled(items: Flow<Item>): Flow<Item> = items.map { it.copy(price = it.price * 2) }

    override fun endless(id: String): Flow<Item> = flow {
        probe.started(id).complete(Unit)
        try {
            var n = 0
            while (true) {
                emit(Item(id, n++))
            }
        } catch (e: CancellationException) {
            probe.cancelled(id).complete(e)
            throw e
        }
    }

    override fun ticking(id: String): Flow<Item> = flow {
        probe.started(id).complete(Unit)
        try {
            var n = 0
            while (true) {
                delay(20)
                emit(Item(id, n++))
            }
        } catch (e: CancellationException) {
            probe.cancelled(id).complete(e)
            throw e
        }
    }
}
