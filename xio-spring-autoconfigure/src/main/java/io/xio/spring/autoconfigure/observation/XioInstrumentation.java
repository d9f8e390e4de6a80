package io.xio.spring.autoconfigure.observation;

/**
 * Sees every call through client proxies and exported services, for metrics and tracing. The starter asks
 * for one {@link CallRecorder} per {@link XioCall} when that kind of call first happens, then drives it per
 * call; a recorder that keeps its meters resolved records without allocating. The actuator module provides
 * a Micrometer one; without a bean of this type, nothing is recorded.
 *
 * <p>Implementations must be thread-safe: calls start and stop on application, worker and context threads.
 */
public interface XioInstrumentation
{
    /** Records nothing. */
    XioInstrumentation NONE = call -> CallRecorder.NONE;

    /** The recorder for calls of this kind; called once per kind, from any thread. */
    CallRecorder recorder(XioCall call);

    /** Records calls of one kind. */
    interface CallRecorder
    {
        /** Records nothing. */
        CallRecorder NONE = new CallRecorder()
        {
            @Override
            public Object start()
            {
                return null;
            }

            @Override
            public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
                final Throwable failure)
            {
            }
        };

        /** A call starts; returns what {@link #stop} needs back (null if nothing). */
        Object start();

        /**
         * The call ended.
         *
         * @param started what {@link #start} returned
         * @param startNanos {@link System#nanoTime()} when the call started
         * @param outcome how it ended
         * @param failure what it failed with, or null
         */
        void stop(Object started, long startNanos, XioCallOutcome outcome, Throwable failure);

        /** {@link #stop}, but a recorder that fails is logged, never allowed to disturb the call it records. */
        default void stopSafely(final Object started, final long startNanos, final XioCallOutcome outcome,
            final Throwable failure)
        {
            try
            {
                stop(started, startNanos, outcome, failure);
            }
            catch (final RuntimeException ex)
            {
                org.slf4j.LoggerFactory.getLogger(XioInstrumentation.class).warn("recording a call failed", ex);
            }
        }
    }
}
