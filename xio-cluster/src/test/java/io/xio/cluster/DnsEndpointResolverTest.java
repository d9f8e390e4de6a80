package io.xio.cluster;

import io.xio.engine.XioUri;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DnsEndpointResolver}'s logic on a fake clock and a lookup the test answers: when names are looked up (at
 * once, every period, early when asked but never sooner than the minimum interval), what is reported (a set only
 * when it changed, failures with the last set standing) and the targets it accepts.
 */
class DnsEndpointResolverTest
{
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final String TARGET = "dns:///kv.test:7000";

    private final ManualClientThread thread = new ManualClientThread();
    /** The answers by host; a host missing has no address. */
    private final Map<String, List<String>> zone = new HashMap<>();
    private final List<String> lookups = new ArrayList<>();
    /** Runs inside each lookup, as if while the lookup waits for DNS. */
    private Runnable duringLookup = () ->
    {
    };
    private DnsEndpointResolver resolver = resolver(b -> b);

    private DnsEndpointResolver resolver(final java.util.function.UnaryOperator<DnsEndpointResolver.Builder> settings)
    {
        final DnsEndpointResolver.Builder builder = settings.apply(DnsEndpointResolver.builder()
            .refreshInterval(Duration.ofSeconds(30)).minRefreshInterval(Duration.ofSeconds(5))
            .lookup(host ->
            {
                lookups.add(host);
                duringLookup.run();
                final List<String> answer = zone.get(host);
                if (answer == null)
                {
                    throw new UnknownHostException(host);
                }
                final List<InetAddress> addresses = new ArrayList<>();
                for (final String address : answer)
                {
                    addresses.add(InetAddress.getByName(address)); // literals: no lookup
                }
                return addresses;
            }));
        return new DnsEndpointResolver(builder, thread.clock, thread);
    }

    /** What a watcher heard, in order: a set as its ids, an error as "error: message". */
    private static final class Heard implements EndpointResolver.Listener
    {
        final List<String> reports = new ArrayList<>();
        final List<List<Endpoint>> sets = new ArrayList<>();

        @Override
        public void onEndpoints(final List<Endpoint> endpoints)
        {
            sets.add(endpoints);
            reports.add(endpoints.stream().map(Endpoint::id).toList().toString());
        }

        @Override
        public void onError(final Throwable cause)
        {
            reports.add("error: " + cause.getMessage());
        }
    }

    private void answer(final String... addresses)
    {
        zone.put("kv.test", Arrays.asList(addresses));
    }

    @Test
    void everyAddressIsAnEndpointWithOnePortalOfTheTargetsTransportAndPort()
    {
        resolver = resolver(b -> b.addressFamily(DnsEndpointResolver.AddressFamily.BOTH));
        answer("10.0.0.2", "10.0.0.1", "10.0.0.2", "fd00::7");
        final Heard heard = new Heard();
        resolver.watch("dns+tls:///kv.test:7443/ignored", heard);
        thread.runDue();

        assertThat(heard.sets).singleElement().asList().containsExactly(
            Endpoint.of(XioUri.parse("tls://10.0.0.1:7443")), Endpoint.of(XioUri.parse("tls://10.0.0.2:7443")),
            Endpoint.of(XioUri.parse("tls://[fd00:0:0:0:0:0:0:7]:7443")));
        assertThat(heard.sets.get(0)).allSatisfy(endpoint -> assertThat(endpoint.host()).as("host unknown: no shm")
            .isEmpty());
    }

    @Test
    void aNameIsLookedUpAgainEveryPeriodAndOnlyAChangeIsReported()
    {
        answer("10.0.0.1");
        final Heard heard = new Heard();
        resolver.watch(TARGET, heard);
        thread.runDue();
        assertThat(lookups).hasSize(1);

        thread.advance(30 * SECOND); // unchanged: looked up, not reported
        assertThat(lookups).hasSize(2);
        answer("10.0.0.1", "10.0.0.3");
        thread.advance(29 * SECOND);
        assertThat(lookups).as("not before the period").hasSize(2);
        thread.advance(SECOND);
        answer("10.0.0.3");
        thread.advance(30 * SECOND);

        assertThat(lookups).hasSize(4);
        assertThat(heard.reports).containsExactly("[tcp://10.0.0.1:7000]",
            "[tcp://10.0.0.1:7000, tcp://10.0.0.3:7000]", "[tcp://10.0.0.3:7000]");
    }

    @Test
    void aFailedLookupIsReportedAndTheLastSetStandsUntilTheNameIsBack()
    {
        answer("10.0.0.1", "10.0.0.2");
        final Heard heard = new Heard();
        resolver.watch(TARGET, heard);
        thread.runDue();

        zone.remove("kv.test");
        thread.advance(30 * SECOND);
        answer(); // an answer without addresses counts as a failure too
        thread.advance(30 * SECOND);
        answer("10.0.0.1", "10.0.0.2"); // back as it was: nothing new to report
        thread.advance(30 * SECOND);
        answer("10.0.0.2");
        thread.advance(30 * SECOND);

        assertThat(heard.reports).containsExactly("[tcp://10.0.0.1:7000, tcp://10.0.0.2:7000]",
            "error: kv.test", "error: kv.test has no address", "[tcp://10.0.0.2:7000]");
    }

    @Test
    void anAnswerWithMoreAddressesThanTheBoundIsRefusedAndTheLastSetStands()
    {
        resolver = resolver(b -> b.maxAddresses(2));
        answer("10.0.0.1", "10.0.0.2");
        final Heard heard = new Heard();
        resolver.watch(TARGET, heard);
        thread.runDue();

        answer("10.0.0.1", "10.0.0.2", "10.0.0.3");
        thread.advance(30 * SECOND);

        assertThat(heard.reports).containsExactly("[tcp://10.0.0.1:7000, tcp://10.0.0.2:7000]",
            "error: kv.test has 3 addresses, more than the 2 a DNS resolver takes (maxAddresses); the last set " +
                "stands");
    }

    @Test
    void aRefreshLooksUpAtOnceButNeverSoonerThanTheMinimumIntervalAfterTheLastLookupHoweverOftenAsked()
    {
        answer("10.0.0.1");
        final Heard heard = new Heard();
        final EndpointResolver.Watch watch = resolver.watch(TARGET, heard);
        thread.runDue();
        assertThat(lookups).hasSize(1);

        // A failing fleet: every client asks, again and again, within the minimum interval.
        for (int i = 0; i < 100; i++)
        {
            watch.refresh();
            thread.advance(TimeUnit.MILLISECONDS.toNanos(10));
        }
        assertThat(lookups).as("one second after the lookup: none yet").hasSize(1);
        thread.advance(4 * SECOND - TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(lookups).hasSize(1);
        answer("10.0.0.2");
        thread.advance(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(lookups).as("five seconds after the last one").hasSize(2);
        assertThat(heard.reports).last().isEqualTo("[tcp://10.0.0.2:7000]");

        // Long after the last lookup a refresh looks up at once, and the period counts from it.
        thread.advance(20 * SECOND);
        watch.refresh();
        thread.runDue();
        assertThat(lookups).hasSize(3);
        thread.advance(29 * SECOND);
        assertThat(lookups).hasSize(3);
        thread.advance(SECOND);
        assertThat(lookups).hasSize(4);
    }

    @Test
    void watchersOfOneNameShareItsLookupsAndALateOneHearsTheSetKnown()
    {
        answer("10.0.0.1");
        final Heard first = new Heard();
        final Heard second = new Heard();
        final EndpointResolver.Watch firstWatch = resolver.watch(TARGET, first);
        thread.runDue();
        resolver.watch(TARGET + "/kv", second); // the same name with a resource
        thread.runDue();
        assertThat(lookups).hasSize(1);
        assertThat(second.reports).containsExactly("[tcp://10.0.0.1:7000]");

        firstWatch.close();
        answer("10.0.0.2");
        thread.advance(30 * SECOND);
        assertThat(lookups).hasSize(2);
        assertThat(first.reports).containsExactly("[tcp://10.0.0.1:7000]");
        assertThat(second.reports).containsExactly("[tcp://10.0.0.1:7000]", "[tcp://10.0.0.2:7000]");
    }

    @Test
    void aWatcherThatThrowsStopsNeitherTheOthersNorTheNextLookups()
    {
        answer("10.0.0.1");
        resolver.watch(TARGET, endpoints ->
        {
            throw new IllegalStateException("a broken watcher");
        });
        final Heard heard = new Heard();
        resolver.watch(TARGET, heard);
        thread.runDue();
        answer("10.0.0.2");
        thread.advance(30 * SECOND);

        assertThat(heard.reports).containsExactly("[tcp://10.0.0.1:7000]", "[tcp://10.0.0.2:7000]");
    }

    @Test
    void aNameNoLongerWatchedOrAClosedResolverLooksNothingUp()
    {
        answer("10.0.0.1");
        final EndpointResolver.Watch watch = resolver.watch(TARGET, new Heard());
        resolver.watch("dns:///other.test:7000", new Heard());
        thread.runDue();
        assertThat(lookups).containsExactly("kv.test", "other.test");

        watch.close();
        watch.refresh();
        thread.advance(30 * SECOND);
        assertThat(lookups).containsExactly("kv.test", "other.test", "other.test");

        resolver.close();
        thread.advance(TimeUnit.HOURS.toNanos(1));
        assertThat(lookups).hasSize(3);
        assertThatThrownBy(() -> resolver.watch(TARGET, new Heard())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void targetsNameTheirTransportPortAndResourceAndBadOnesAreRefusedSayingWhy()
    {
        assertThat(DnsTarget.parse("dns:///kv.prod.svc.cluster.local:7000/kv"))
            .isEqualTo(new DnsTarget("tcp", "kv.prod.svc.cluster.local", 7000, "kv"));
        assertThat(DnsTarget.parse("DNS+tls:///kv:7443")).isEqualTo(new DnsTarget("tls", "kv", 7443, ""));
        assertThat(DnsTarget.parse("dns+tls:///kv:7443/kv").service()).isEqualTo("dns+tls:///kv:7443");
        assertThat(DnsTarget.parse("dns:///kv:7000/kv").service()).isEqualTo("dns:///kv:7000");
        assertThat(DnsTarget.isDns("tcp://kv:7000/kv")).isFalse();

        assertThatThrownBy(() -> DnsTarget.parse("dns:///kv/kv")).hasMessageContaining("needs a port");
        assertThatThrownBy(() -> DnsTarget.parse("dns://8.8.8.8/kv:7000"))
            .hasMessageContaining("an empty authority");
        assertThatThrownBy(() -> DnsTarget.parse("dns+shm:///kv:7000")).hasMessageContaining("only this host");
        assertThatThrownBy(() -> DnsTarget.parse("dns+:///kv:7000")).hasMessageContaining("no transport");
        assertThatThrownBy(() -> resolver.watch("tcp://kv:7000", new Heard())).hasMessageContaining("no DNS target");
    }

    @Test
    void aWatcherJoiningAfterAFailedLookupHearsTheSetKnownAndTheFailureAndNothingTwice()
    {
        answer("10.0.0.1");
        final Heard first = new Heard();
        resolver.watch(TARGET, first);
        thread.runDue();
        zone.remove("kv.test");
        thread.advance(30 * SECOND);

        final Heard late = new Heard();
        resolver.watch(TARGET, late);
        thread.runDue();
        assertThat(late.reports).containsExactly("[tcp://10.0.0.1:7000]", "error: kv.test");

        answer("10.0.0.1"); // back unchanged: nobody lacks the set
        thread.advance(30 * SECOND);
        assertThat(late.reports).hasSize(2);
        assertThat(first.reports).containsExactly("[tcp://10.0.0.1:7000]", "error: kv.test");
    }

    @Test
    void aWatcherJoiningBeforeAnyAddressWasFoundHearsTheFirstSetFound()
    {
        final Heard first = new Heard();
        resolver.watch(TARGET, first);
        thread.runDue();
        final Heard late = new Heard();
        resolver.watch(TARGET, late);
        thread.runDue();
        answer("10.0.0.1");
        thread.advance(30 * SECOND);

        assertThat(late.reports).containsExactly("error: kv.test", "[tcp://10.0.0.1:7000]");
        assertThat(first.reports).containsExactly("error: kv.test", "[tcp://10.0.0.1:7000]");
    }

    @Test
    void oneAddressFamilyIsTakenByDefaultSoThatADualStackHostIsOneEndpoint()
    {
        answer("::1", "127.0.0.1");
        final Heard heard = new Heard();
        resolver.watch(TARGET, heard);
        thread.runDue();
        assertThat(heard.reports).as("IPv4, as java.net.preferIPv6Addresses is not true")
            .containsExactly("[tcp://127.0.0.1:7000]");

        final Heard v6 = new Heard();
        resolver(b -> b.addressFamily(DnsEndpointResolver.AddressFamily.IPV6)).watch(TARGET, v6);
        final Heard both = new Heard();
        resolver(b -> b.addressFamily(DnsEndpointResolver.AddressFamily.BOTH)).watch(TARGET, both);
        thread.runDue();
        // A name of one family only is taken whichever is preferred.
        final Heard v6Only = new Heard();
        resolver(b -> b.addressFamily(DnsEndpointResolver.AddressFamily.IPV4)).watch("dns:///v6.test:7000", v6Only);
        zone.put("v6.test", List.of("fd00::1", "fd00::2"));
        thread.runDue();

        assertThat(v6.reports).containsExactly("[tcp://[0:0:0:0:0:0:0:1]:7000]");
        assertThat(both.reports).containsExactly("[tcp://127.0.0.1:7000, tcp://[0:0:0:0:0:0:0:1]:7000]");
        assertThat(v6Only.reports)
            .containsExactly("[tcp://[fd00:0:0:0:0:0:0:1]:7000, tcp://[fd00:0:0:0:0:0:0:2]:7000]");
        assertThat(DnsEndpointResolver.AddressFamily.preferred()).isEqualTo(DnsEndpointResolver.AddressFamily.IPV4);
    }

    @Test
    void aWatchOrResolverClosedWhileALookupRunsHearsNothingOfIt()
    {
        answer("10.0.0.1");
        final Heard leaving = new Heard();
        final Heard staying = new Heard();
        final EndpointResolver.Watch leavingWatch = resolver.watch(TARGET, leaving);
        resolver.watch(TARGET, staying);
        duringLookup = leavingWatch::close;
        thread.runDue();
        assertThat(leaving.reports).isEmpty();
        assertThat(staying.reports).containsExactly("[tcp://10.0.0.1:7000]");

        answer("10.0.0.2");
        duringLookup = resolver::close;
        thread.advance(30 * SECOND);
        assertThat(lookups).hasSize(2);
        assertThat(staying.reports).containsExactly("[tcp://10.0.0.1:7000]");
    }

    @Test
    void anErrorFromTheLookupOrAWatcherStopsNoLookup()
    {
        answer("10.0.0.1");
        final Heard heard = new Heard();
        resolver.watch(TARGET, endpoints ->
        {
            throw new AssertionError("a broken watcher");
        });
        resolver.watch(TARGET, heard);
        duringLookup = () ->
        {
            throw new LinkageError("a lookup library missing");
        };
        thread.runDue();
        duringLookup = () ->
        {
        };
        thread.advance(30 * SECOND);
        answer("10.0.0.2");
        thread.advance(30 * SECOND);

        assertThat(lookups).hasSize(3);
        assertThat(heard.reports).containsExactly("error: a lookup library missing", "[tcp://10.0.0.1:7000]",
            "[tcp://10.0.0.2:7000]");
    }

    @Test
    void theMinimumRefreshIntervalMustBePositive()
    {
        assertThatThrownBy(() -> DnsEndpointResolver.builder().minRefreshInterval(Duration.ZERO))
            .hasMessageContaining("minRefreshInterval must be positive");
    }

    @Test
    void aJvmCacheLongerThanTheMinimumRefreshIntervalIsWarnedOf()
    {
        // An early lookup, the minimum interval after the last, would see the cached answer.
        assertThat(DnsEndpointResolver.staleCacheWarning(10, 5 * SECOND)).contains("minimum refresh interval");
        assertThat(DnsEndpointResolver.staleCacheWarning(-1, 5 * SECOND)).contains("for ever");
        assertThat(DnsEndpointResolver.staleCacheWarning(5, 5 * SECOND)).isNull();
        assertThat(DnsEndpointResolver.staleCacheWarning(0, 5 * SECOND)).isNull();
    }
}
