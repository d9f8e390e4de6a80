package io.xio.engine;

/**
 * Where a {@link Context} is in its life; {@link #canMoveTo} holds every transition there is. Written by the
 * context's own thread (and by whoever closes the engine), read from any thread.
 *
 * <pre>
 *   RUNNING ──an Error, or a Throwable escaping the duty cycle──▶ FAILED
 *      └──────────────────────────engine closed──────────────────▶ CLOSED
 * </pre>
 *
 * A failed context stays FAILED: closing the engine afterwards does not hide why it stopped.
 */
public enum ContextState
{
    /** The loop runs (or, for a manual context, may be run). */
    RUNNING,
    /** The loop stopped on an {@link Error} or an unexpected {@link Throwable}; see {@link Context#failure()}. */
    FAILED,
    /** The loop stopped because the engine closed. */
    CLOSED;

    public boolean canMoveTo(final ContextState next)
    {
        return this == RUNNING && next != RUNNING;
    }
}
