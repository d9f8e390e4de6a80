package io.xio.engine.session.admission;

import io.xio.engine.session.admission.AuthenticationFailures.Verdict;
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

    @Test
    void theThresholdsAreTheOnesGiven()
    {
        final AuthenticationFailures two = new AuthenticationFailures(() -> now, 2, 1_000);
        assertThat(two.failed("h")).isFalse();
        assertThat(two.failed("h")).isTrue();
        assertThat(two.check("h")).isEqualTo(Verdict.REFUSE_FIRST);
        now += 1_000;
        assertThat(two.check("h")).isEqualTo(Verdict.ASK);
    }

    @Test
    void failuresAreCountedPerPortalAndAnIpv6HostByItsSlash64()
    {
        assertThat(AuthenticationFailures.key("tcp://0.0.0.0:7000", "10.0.0.1"))
            .isNotEqualTo(AuthenticationFailures.key("tls://0.0.0.0:7001", "10.0.0.1"));
        assertThat(AuthenticationFailures.hostKey("2001:db8:1:2:aaaa:0:0:1")).isEqualTo("2001:db8:1:2::/64");
        assertThat(AuthenticationFailures.hostKey("2001:0db8:0001:0002::5")).isEqualTo("2001:db8:1:2::/64");
        assertThat(AuthenticationFailures.hostKey("[2001:db8:1:2::5]")).isEqualTo("2001:db8:1:2::/64");
        assertThat(AuthenticationFailures.hostKey("2001:db8:1:3::1")).isEqualTo("2001:db8:1:3::/64");
        assertThat(AuthenticationFailures.hostKey("2001:db8::1")).isEqualTo("2001:db8:0:0::/64");
        assertThat(AuthenticationFailures.hostKey("fe80:0:0:0:1:2:3:4%eth0")).isEqualTo("fe80:0:0:0::/64");
        assertThat(AuthenticationFailures.hostKey("0:0:0:0:0:0:0:1")).isEqualTo("0:0:0:0::/64");
        assertThat(AuthenticationFailures.hostKey("::1")).isEqualTo("0:0:0:0::/64");
        assertThat(AuthenticationFailures.hostKey("::ffff:10.0.0.1")).isEqualTo("0:0:0:0::/64");
        assertThat(AuthenticationFailures.hostKey("1:2:3:4:5:6:1.2.3.4")).isEqualTo("1:2:3:4::/64");
        assertThat(AuthenticationFailures.hostKey("10.0.0.1")).as("IPv4: itself").isEqualTo("10.0.0.1");
        assertThat(AuthenticationFailures.hostKey("shm://ann@kv")).isEqualTo("shm://ann@kv");
        for (final String notIpv6 : new String[] {"1:2:3", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::1", "g::1",
            "local://a:b", "1:2:3:4:5:6:7:1.2.3.256"})
        {
            assertThat(AuthenticationFailures.hostKey(notIpv6)).as(notIpv6).isEqualTo(notIpv6);
        }
        for (int i = 0; i < AuthenticationFailures.MAX_FAILURES; i++)
        {
            failures.failed(AuthenticationFailures.key("p", "2001:db8:1:2::" + Integer.toHexString(i + 1)));
        }
        assertThat(failures.check(AuthenticationFailures.key("p", "2001:db8:1:2:ffff::9")))
            .as("another address of the same /64").isEqualTo(Verdict.REFUSE_FIRST);
        assertThat(failures.check(AuthenticationFailures.key("q", "2001:db8:1:2::1"))).as("another portal")
            .isEqualTo(Verdict.ASK);
    }
}
