package io.xio.kotlin.api

/** Two calls that meet in the service: one waits for a key, the other releases it. The caller is the first argument. */
interface Relay {
    /**
     * Suspends until release(key) resumes it, then names what the service saw current as it resumed: the call's
     * first argument, and the caller the interceptor made current for the call.
     */
    suspend fun awaitRelease(key: String): String

    /** Resumes the waiting awaitRelease(key) from inside this call, whose caller is by. */
    suspend fun release(by: String, key: String)
}
