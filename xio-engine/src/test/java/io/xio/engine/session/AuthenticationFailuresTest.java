package io.xio.engine.session;

import io.xio.engine.session.AuthenticationFailures.Verdict;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-host limit on failed authentications, on a clock the test moves. */
class AuthenticationFailuresTest
{
    private long now = 1_000;
    private final AuthenticationFailures failures = new AuthenticationFailures(() -> now);

    @Test
    void aHostIsRefusedAfterItsFailuresUntilTheIntervalPassedAndOthersAreNot()
    {
        for (int i = 0; i < AuthenticationFailures.MAX_FAILURES; i++)
        {
            assertThat(failures.check("tcp://10.0.0.1")).isEqualTo(Verdict.ASK);
            assertThat(failures.failed("tcp://10.0.0.1")).isEqualTo(i == AuthenticationFailures.MAX_FAILURES - 1);
        }
        assertThat(failures.check("tcp://10.0.0.1")).as("logged once").isEqualTo(Verdict.REFUSE_FIRST);
        assertThat(failures.check("tcp://10.0.0.1")).isEqualTo(Verdict.REFUSE);
        assertThat(failures.check("tcp://10.0.0.2")).as("another host").isEqualTo(Verdict.ASK);
        now += AuthenticationFailures.INTERVAL_NANOS - 1;
        assertThat(failures.check("tcp://10.0.0.1")).isEqualTo(Verdict.REFUSE);
        now += 1;
        assertThat(failures.check("tcp://10.0.0.1")).as("the interval passed").isEqualTo(Verdict.ASK);
        assertThat(failures.failed("tcp://10.0.0.1")).as("counting afresh").isFalse();
    }

    @Test
    void failuresSpreadOverIntervalsNeverAddUp()
    {
        for (int i = 0; i < 5 * AuthenticationFailures.MAX_FAILURES; i++)
        {
            if (i % (AuthenticationFailures.MAX_FAILURES - 1) == 0)
            {
                now += AuthenticationFailures.INTERVAL_NANOS;
            }
            assertThat(failures.check("tcp://10.0.0.1")).isEqualTo(Verdict.ASK);
            failures.failed("tcp://10.0.0.1");
        }
    }

    @Test
    void manyHostsCostABoundedMapTheOldestLeavingFirst()
    {
        for (int i = 0; i < AuthenticationFailures.MAX_FAILURES; i++)
        {
            failures.failed("tcp://first");
        }
        for (int i = 0; i < 3 * AuthenticationFailures.MAX_HOSTS; i++)
        {
            failures.failed("tcp://10.1." + (i >>> 8) + "." + (i & 0xFF));
        }
        assertThat(failures.size()).isEqualTo(AuthenticationFailures.MAX_HOSTS);
        assertThat(failures.check("tcp://first")).as("forgotten: the oldest").isEqualTo(Verdict.ASK);
    }
}
