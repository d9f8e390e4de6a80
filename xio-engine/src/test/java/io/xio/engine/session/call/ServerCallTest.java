package io.xio.engine.session.call;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A pooled call taken for a retransmit that the window answers itself (the id is executing, done, too old, or its
 * slot is busy) goes straight back to the pool. A cancel aimed at the id's execution, read from the window before
 * that execution ended and arriving late, must not hit it there: it would count the execution as cancelled twice
 * and report as aborted a request that ran. These calls have no lane: a cancel that got through would fail on it.
 */
class ServerCallTest
{
    @Test
    void aCallTakenForARetransmitAndHandedBackCannotBeCancelled()
    {
        final ServerCall call = new ServerCall((Lane)null, (CallPool)null);
        call.beginAs(7, 0); // a retransmit of 7 came in; the window said 7 is done, so the call was not claimed
        call.unused();

        assertFalse(call.cancel(7));
        assertFalse(call.isCancelled());
    }

    @Test
    void aCallReadiedForAnotherIdCannotBeCancelledForAnEarlierOne()
    {
        final ServerCall call = new ServerCall((Lane)null, (CallPool)null);
        call.beginAs(7, 0);
        call.unused();
        call.beginAs(9, 0);

        assertFalse(call.cancel(7));
        assertFalse(call.cancel(9)); // not claimed yet: the window has not made it 9's execution
    }
}
