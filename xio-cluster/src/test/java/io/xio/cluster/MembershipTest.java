package io.xio.cluster;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What membership does on its own clock: a resolver that keeps failing is logged once in ten seconds. */
class MembershipTest
{
    private final ManualClientThread thread = new ManualClientThread();
    private final Membership membership = new Membership(new Membership.Context("kv", 0, new Object(), thread.clock,
        thread, new Picker(LoadBalancer.roundRobin(), thread)));

    @Test
    void aResolverThatKeepsFailingIsLoggedOnceInTenSeconds()
    {
        final RuntimeException down = new IllegalStateException("the backend is down");
        assertThat(membership.resolverFailed(down)).isTrue();
        thread.advance(TimeUnit.SECONDS.toNanos(10) - 1);
        assertThat(membership.resolverFailed(down)).isFalse();
        thread.advance(1);
        assertThat(membership.resolverFailed(down)).isTrue();
        assertThat(membership.resolverFailed(down)).isFalse();
    }
}
