package io.xio.kotlin.api

import io.xio.annotation.XioMethod
import kotlinx.coroutines.flow.Flow

/** One item of the catalog: a Kotlin data class, written by Jackson's Kotlin module. */
data class Item(val id: String, val price: Int)

/** What a client stream of items adds up to. */
data class Summary(val count: Int, val total: Int)

/** A failure the contract declares (@Throws), which the client rebuilds as its own type. */
class ItemMissingException(message: String) : RuntimeException(message)

/** The shared contract, in Kotlin: suspend functions and Flows beside a plain method. */
interface Catalog {
    suspend fun item(id: String): Item

    /** Null when there is no such item. */
    suspend fun find(id: String): Item?

    /** Nothing to answer: Unit. */
    suspend fun touch(id: String)

    suspend fun listed(count: Int): List<Item>

    /** The name of the method XioServerCall.current() names as the function starts. */
    suspend fun calledAs(): String

    /** Throws IllegalArgumentException(why) after it suspended once. */
    suspend fun fail(why: String): Item

    /** Throws the same at once, and does not suspend: the Java-shaped reference. */
    fun failPlain(why: String): Item

    /** Declared as a Java throws clause, so the service keeps the type and the client rebuilds it. */
    @Throws(ItemMissingException::class)
    suspend fun missing(id: String): Item

    /** Throws IllegalStateException(why), which no handler of the service maps. */
    suspend fun failUnmapped(why: String): Item

    /** Waits until it is cancelled, telling the server's probe. */
    suspend fun hang(id: String): Item

    /** Waits as hang does, past its deadline. */
    @XioMethod(timeout = "300ms")
    suspend fun slow(id: String): Item

    /** count items, streamed by the server. */
    fun items(count: Int): Flow<Item>

    /** The same, after the function suspended. */
    suspend fun itemsLater(count: Int): Flow<Item>

    /** Adds up what the client streams. */
    suspend fun total(items: Flow<Item>): Summary

    /** Adds up what the client streams, telling the probe it began and whether it was cancelled. */
    suspend fun totalWatched(id: String, items: Flow<Item>): Summary

    /** Each item the client streams, back at twice the price. */
    fun doubled(items: Flow<Item>): Flow<Item>

    /** Items as fast as the client takes them, until cancelled (told to the probe). */
    fun endless(id: String): Flow<Item>

    /** An item every 20 ms, past its deadline. */
    @XioMethod(timeout = "300ms")
    fun ticking(id: String): Flow<Item>
}
