package io.xio.engine;

/**
 * What an engine does once one of its contexts {@link ContextState#FAILED failed}: an {@link Error} (out of
 * memory, stack overflow, ...) was thrown on its thread, or a {@link Throwable} escaped its duty cycle. Either
 * way the context's sessions fail first (their callers get a {@link ContextFailedException}), its connections
 * close, and the engine's {@link SessionListener} hears {@link SessionEvent.Type#CONTEXT_FAILED}; the policy
 * decides what happens next. Set with {@link XioEngine.Builder#onContextFailure}.
 */
public enum ContextFailurePolicy
{
    /**
     * The engine closes itself: every session, portal and context. The default: after an Error, what the
     * failed context was half-way through (a frame half-decoded, a call half-answered, a pool or counter half
     * updated) is unknown, and a process that stops answering cleanly, with its health DOWN, is restarted by
     * its orchestrator whole, which is safer than an engine carrying on with part of its state suspect.
     */
    CLOSE_ENGINE,
    /**
     * The failed context is replaced by a fresh one on a new thread, which binds the failed context's portals
     * again at their addresses; the other contexts and their sessions carry on. For applications that would
     * rather lose one context's sessions than all of them, and accept that an Error left the JVM otherwise
     * intact. Should the replacement itself fail to start (no memory for a thread), the engine closes.
     */
    RESTART_CONTEXT
}
