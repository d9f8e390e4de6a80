package io.xio.kotlin.api

import kotlinx.coroutines.flow.Flow
import reactor.core.publisher.Flux
import reactor.core.publisher.Mono

/** A client stream as a Java interface declares it: a Flux in, a Mono out. */
interface FluxLedger {
    fun total(items: Flux<Item>): Mono<Summary>
}

/** The same client stream as Kotlin declares it: a Flow in, a suspend function's answer. */
interface FlowLedger {
    suspend fun total(items: Flow<Item>): Summary
}
