package io.xio.engine.session.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A principal's share lives as long as its sessions or its calls, whichever ends last. */
class PrincipalsTest
{
    private final Principals principals = new Principals();

    @Test
    void aShareWithCallsStillRunningOutlivesItsLastSession()
    {
        final Principals.Share share = principals.tryAcquire("ann", 2);
        assertThat(share.startedExecuting(1)).isTrue();
        principals.release(share);
        assertThat(principals.shareOf("ann")).as("its call still runs").isSameAs(share);
        final Principals.Share again = principals.tryAcquire("ann", 2);
        assertThat(again).as("a new session finds the running call counted").isSameAs(share);
        assertThat(again.startedExecuting(1)).isFalse();
        again.stoppedExecuting();
        principals.release(again);
        assertThat(principals.shareOf("ann")).isSameAs(share);
        share.stoppedExecuting();
        assertThat(share.executing()).isZero();
        assertThat(principals.shareOf("ann")).as("no session, no call: gone").isNull();
    }

    @Test
    void aShareLeavesWithItsLastSessionWhenNothingRuns()
    {
        final Principals.Share share = principals.tryAcquire("bob", 1);
        assertThat(principals.tryAcquire("bob", 1)).as("over its one session").isNull();
        assertThat(share.startedExecuting(5)).isTrue();
        share.stoppedExecuting();
        assertThat(principals.shareOf("bob")).as("its session is still open").isSameAs(share);
        principals.release(share);
        assertThat(principals.shareOf("bob")).isNull();
        assertThat(principals.tryAcquire("bob", 1)).isNotSameAs(share);
    }
}
