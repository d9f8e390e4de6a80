package io.xio.actuate.observation;

import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import org.jspecify.annotations.Nullable;

/**
 * What both sides' observation contexts tell about one xio call ({@link XioClientObservationContext},
 * {@link XioServerObservationContext}), for a convention that names either: which method of which service, from
 * which side, over which transport, and once it is over, how it ended.
 */
public interface XioObservationContext
{
    /** The kind of call. */
    XioCall call();

    /** How the call ended; null until it has. */
    @Nullable XioCallOutcome outcome();

    /** Sets how the call ended, just before its observation stops (so the conventions can name it). */
    void outcome(XioCallOutcome outcome);
}
