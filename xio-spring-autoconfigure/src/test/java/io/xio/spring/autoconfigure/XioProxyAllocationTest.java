package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.sample.echo.client.EchoClient;
import io.xio.spring.autoconfigure.sample.echo.client.EchoClientApplication;
import io.xio.spring.autoconfigure.sample.echo.server.EchoServer;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * Not a timing: the bytes every thread of this JVM (client proxy and server, both over tcp on 127.0.0.1) allocates
 * per call, after warm-up, stay within the 512 bytes the project allows a proxy call, blocking or asynchronous.
 * The best of a few rounds counts, as the JIT may still be compiling during the first. What the allocation-free
 * paths reuse is checked to never mix up calls.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XioProxyAllocationTest
{
    /** A blocking call stands at ~336 B, an asynchronous one (its future included) at ~408 B. */
    private static final long BUDGET = 512;
    private static final int ROUNDS = 5;
    private static final int CALLS = 20_000;
    private static final int OUTSTANDING = 64;

    @Test
    void aProxyCallAllocatesAtMostItsBudgetOnBothSides()
    {
        XioAutoConfigurationEndToEndTest.runner(EchoServer.class)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
        {
            final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
            XioAutoConfigurationEndToEndTest.runner(EchoClientApplication.class)
                .withPropertyValues("xio.clients.echo.uri=tcp://127.0.0.1:" + port + "/echo").run(client ->
            {
                final EchoClient echo = client.getBean(EchoClient.class);
                final byte[] data = new byte[64];
                Arrays.fill(data, (byte)7);
                assertThat(echo.bytes(data)).isEqualTo(data);
                assertThat(echo.bytesAsync(data).get(5, TimeUnit.SECONDS)).isEqualTo(data);
                assertThat(echo.text("hello")).isEqualTo("hello");

                final List<Double> blocking = perCall(i -> echo.bytes(data));
                final CompletableFuture<?>[] window = new CompletableFuture<?>[OUTSTANDING];
                final List<Double> async = perCall(i ->
                {
                    final int slot = i % OUTSTANDING;
                    if (window[slot] != null)
                    {
                        awaitDone(window[slot]);
                    }
                    window[slot] = echo.bytesAsync(data);
                });
                for (final CompletableFuture<?> last : window)
                {
                    awaitDone(last);
                }
                assertSoftly(softly ->
                {
                    softly.assertThat(best(blocking)).as("blocking bytes per call, rounds %s", blocking)
                        .isLessThanOrEqualTo(BUDGET);
                    softly.assertThat(best(async))
                        .as("async bytes per call (%d outstanding), rounds %s", OUTSTANDING, async)
                        .isLessThanOrEqualTo(BUDGET);
                });
            });
        });
    }

    /**
     * What the allocation-free paths reuse (the client's pooled requests and wraps of arrays sent again, the server's
     * pooled answers) never mixes up calls: outstanding calls with arrays of their own, some sent again, some too
     * large to be kept, each get their own bytes back, asynchronous and blocking ones alike.
     */
    @Test
    void reusedMessagesCarryEachCallsOwnData()
    {
        XioAutoConfigurationEndToEndTest.runner(EchoServer.class)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
        {
            final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
            XioAutoConfigurationEndToEndTest.runner(EchoClientApplication.class)
                .withPropertyValues("xio.clients.echo.uri=tcp://127.0.0.1:" + port + "/echo").run(client ->
            {
                final EchoClient echo = client.getBean(EchoClient.class);
                final byte[][] arrays = new byte[OUTSTANDING * 2][];
                for (int i = 0; i < arrays.length; i++)
                {
                    arrays[i] = new byte[i % 3 == 0 ? 2000 + i : 1 + i];
                    Arrays.fill(arrays[i], (byte)i);
                }
                for (int round = 0; round < 20; round++)
                {
                    final List<CompletableFuture<byte[]>> calls = new ArrayList<>();
                    final List<byte[]> sent = new ArrayList<>();
                    for (int i = 0; i < OUTSTANDING; i++)
                    {
                        // Each round shifts the arrays by a few calls: pooled requests meet arrays they did not send.
                        final byte[] data = arrays[(i + round * 7) % arrays.length];
                        sent.add(data);
                        calls.add(echo.bytesAsync(data));
                    }
                    final byte[] blocking = arrays[round % arrays.length];
                    assertThat(echo.bytes(blocking)).isEqualTo(blocking);
                    for (int i = 0; i < calls.size(); i++)
                    {
                        assertThat(calls.get(i).get(5, TimeUnit.SECONDS)).as("call %d of round %d", i, round)
                            .isEqualTo(sent.get(i));
                    }
                }
            });
        });
    }

    /** Waits without allocating (a join would park with a new node when it is not done yet). */
    private static void awaitDone(final CompletableFuture<?> call)
    {
        while (!call.isDone())
        {
            Thread.onSpinWait();
        }
        if (call.isCompletedExceptionally())
        {
            throw new AssertionError("call failed: " + call);
        }
    }

    /** Bytes all threads allocated per call in each measured round (round 0 warms up). */
    private static List<Double> perCall(final IntConsumer call)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final List<Double> rounds = new ArrayList<>();
        for (int round = 0; round <= ROUNDS; round++)
        {
            final long[] ids = threads.getAllThreadIds();
            final long[] before = threads.getThreadAllocatedBytes(ids);
            for (int i = 0; i < CALLS; i++)
            {
                call.accept(i);
            }
            final long[] after = threads.getThreadAllocatedBytes(ids);
            long bytes = 0;
            for (int i = 0; i < ids.length; i++)
            {
                if (before[i] >= 0 && after[i] >= 0)
                {
                    bytes += after[i] - before[i];
                }
            }
            if (round > 0)
            {
                rounds.add((double)bytes / CALLS);
            }
        }
        return rounds;
    }

    private static double best(final List<Double> rounds)
    {
        return rounds.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }
}
