package io.xio.actuate.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.xio.actuate.sample.Greeter;
import io.xio.actuate.sample.Runners;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioMetricsTest
{
    @Test
    void callsAreTimedOnBothSidesByServiceMethodOutcomeAndTransport()
    {
        Runners.server().run(server -> Runners.client(Runners.greeterUri(server)).run(client ->
        {
            final Greeter greeter = Runners.greeter(client);
            assertThat(greeter.greet("a")).isEqualTo("hello a");
            assertThat(greeter.greet("b")).isEqualTo("hello b");
            assertThat(greeter.greetLater("c").get(5, TimeUnit.SECONDS)).isEqualTo("later c");
            assertThatThrownBy(() -> greeter.fail("no")).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(greeter::slow).isInstanceOf(io.xio.engine.XioTimeoutException.class);

            final MeterRegistry clientMeters = client.getBean(MeterRegistry.class);
            assertThat(timer(clientMeters, "xio.client.requests", "greet", "SUCCESS").count()).isEqualTo(2);
            assertThat(timer(clientMeters, "xio.client.requests", "greetLater", "SUCCESS").count()).isEqualTo(1);
            assertThat(timer(clientMeters, "xio.client.requests", "fail", "SERVICE_ERROR").count()).isEqualTo(1);
            assertThat(timer(clientMeters, "xio.client.requests", "slow", "TIMEOUT").count()).isEqualTo(1);
            assertThat(timer(clientMeters, "xio.client.requests", "greet", "SUCCESS").totalTime(TimeUnit.NANOSECONDS))
                .isPositive();
            assertThat(clientMeters.get("xio.client.requests").tags("rpc.system", "xio", "rpc.service", "greeter",
                "rpc.method", "greet(String)", "rpc.xio.status", "SUCCESS", "xio.transport", "tcp").timer().count())
                .isEqualTo(2);

            final MeterRegistry serverMeters = server.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            {
                assertThat(timer(serverMeters, "xio.server.requests", "greet", "SUCCESS").count()).isEqualTo(2);
                assertThat(timer(serverMeters, "xio.server.requests", "fail", "SERVICE_ERROR").count()).isEqualTo(1);
            });
            assertThat(serverMeters.get("xio.frames.received").functionCounter().count()).isGreaterThanOrEqualTo(5);
            assertThat(clientMeters.get("xio.data.sent").functionCounter().count()).isPositive();
            assertThat(clientMeters.get("xio.frames.per.write").gauge().value()).isPositive();
            assertThat(clientMeters.get("xio.sessions.active").tag("side", "client").gauge().value()).isEqualTo(1);
            assertThat(serverMeters.get("xio.sessions.active").tag("side", "server").gauge().value()).isEqualTo(1);
            assertThat(serverMeters.get("xio.connections.active").tag("side", "server").gauge().value()).isEqualTo(1);
            assertThat(serverMeters.get("xio.context.idle").functionCounter().count()).isPositive();
            assertThat(clientMeters.get("xio.requests.in.flight").tag("side", "client").gauge().value()).isZero();
            assertThat(clientMeters.get("xio.streams.open").tag("side", "client").gauge().value()).isZero();
            assertThat(clientMeters.find("xio.retransmits").functionCounter()).isNotNull();
            assertThat(clientMeters.find("xio.backpressure.rejections").functionCounter()).isNotNull();
            // A stranger's keepalive before any set-up: refused, and counted by kind.
            try (java.net.Socket stranger = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(),
                io.xio.engine.XioUri.parse(Runners.greeterUri(server)).port()))
            {
                stranger.getOutputStream().write(java.nio.ByteBuffer.allocate(32)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, 32).put(4, (byte)2).put(5, (byte)13).array());
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(serverMeters
                    .get("xio.peer.refusals").tag("kind", "before_handshake").functionCounter().count()).isOne());
            }
            assertThat(serverMeters.get("xio.peer.refusals").tag("kind", "attach_proof").functionCounter().count())
                .isZero();
        }));
    }

    @Test
    void recordingACallAllocatesNothing()
    {
        final XioInstrumentation.CallRecorder recorder = new XioTimerInstrumentation(new SimpleMeterRegistry())
            .recorder(new XioCall(XioCall.Side.CLIENT, "kv", "get", "tcp"));
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final RuntimeException failure = new IllegalStateException("x");
        for (int i = 0; i < 20_000; i++) // resolves the timers and lets the JIT settle
        {
            recorder.stop(recorder.start(null), System.nanoTime(), (i & 1) == 0 ? XioCallOutcome.SUCCESS
                : XioCallOutcome.SERVICE_ERROR, (i & 1) == 0 ? null : failure);
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++)
        {
            recorder.stop(recorder.start(null), System.nanoTime(), (i & 1) == 0 ? XioCallOutcome.SUCCESS
                : XioCallOutcome.SERVICE_ERROR, (i & 1) == 0 ? null : failure);
        }
        final long perCall = (threads.getCurrentThreadAllocatedBytes() - before) / 100_000;
        assertThat(perCall).as("bytes allocated per recorded call").isZero();
    }

    @Test
    void aStreamsMessagesAddUpPerDirectionBesideItsOneTimedCall()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final XioInstrumentation.CallRecorder recorder = new XioTimerInstrumentation(registry)
            .recorder(new XioCall(XioCall.Side.SERVER, "quotes", "feed", "tcp"));
        for (int stream = 0; stream < 2; stream++)
        {
            final Object started = recorder.start(null);
            recorder.streamed(started, 3, 5);
            recorder.stop(started, System.nanoTime(), XioCallOutcome.SUCCESS, null);
        }
        assertThat(registry.get(XioTimerInstrumentation.SERVER_STREAM_MESSAGES).tags("service", "quotes",
            "method", "feed", "transport", "tcp", "direction", "sent").counter().count()).isEqualTo(6);
        assertThat(registry.get(XioTimerInstrumentation.SERVER_STREAM_MESSAGES).tags("direction", "received")
            .counter().count()).isEqualTo(10);
        assertThat(registry.get(XioTimerInstrumentation.SERVER_REQUESTS).timer().count()).isEqualTo(2);
        assertThat(registry.find(XioTimerInstrumentation.CLIENT_STREAM_MESSAGES).counters()).isEmpty();
    }

    private static Timer timer(final MeterRegistry registry, final String name, final String method,
        final String outcome)
    {
        return registry.get(name).tags("service", "greeter", "method", method, "outcome", outcome,
            "transport", "tcp").timer();
    }
}
