package io.xio.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds engines for tests (leak detection on, short timeouts, no spinning so tests share two cores) and
 * closes them afterwards, so that a leaked message, thread or port fails the test that caused it.
 */
public final class TestEngines implements AutoCloseable
{
    /**
     * Stretches the timeouts for emulated transports ({@code -Dxio.test.timeScale=N}; the Soft-RoCE guest runs
     * the JVM under QEMU emulation, where a connect or a quiet spell takes many times longer). 1 elsewhere.
     */
    private static final long SCALE = Math.max(1, Long.getLong("xio.test.timeScale", 1));

    /**
     * The engine's limits, with its limits on time stretched by the same scale; under emulation the write-stall
     * timeout is 5 minutes, since a large buffer read one-sided (rdma) shows its sender no progress until the read
     * ends, which can take minutes there.
     */
    public static final Limits LIMITS = SCALE == 1 ? Limits.DEFAULT : Limits.DEFAULT
        .withWriteStallTimeout(Duration.ofMinutes(5))
        .withHandshakeTimeout(Limits.DEFAULT.handshakeTimeout().multipliedBy(SCALE))
        .withIncompleteFrameTimeout(Limits.DEFAULT.incompleteFrameTimeout().multipliedBy(SCALE));

    private final List<XioEngine> engines = new ArrayList<>();

    /** {@code duration} stretched by the emulation scale: a deadline a test means to be short but reachable. */
    public static Duration scaled(final Duration duration)
    {
        return duration.multipliedBy(SCALE);
    }

    public XioEngine.Builder builder(final String name)
    {
        return XioEngine.builder()
            .name(name)
            .contexts(2)
            .busyPoll(Duration.ZERO)
            .leakDetection(true)
            .limits(LIMITS)
            .keepalive(Duration.ofMillis(200), Duration.ofSeconds(3).multipliedBy(SCALE))
            .reconnectTimeout(Duration.ofSeconds(10).multipliedBy(SCALE))
            .connectTimeout(Duration.ofSeconds(3).multipliedBy(SCALE));
    }

    public XioEngine start(final XioEngine.Builder builder)
    {
        final XioEngine engine = builder.build();
        engines.add(engine);
        return engine;
    }

    public XioEngine start(final String name)
    {
        return start(builder(name));
    }

    @Override
    public void close()
    {
        RuntimeException failure = null;
        for (int i = engines.size() - 1; i >= 0; i--)
        {
            try
            {
                engines.get(i).close();
            }
            catch (final RuntimeException ex)
            {
                if (failure == null)
                {
                    failure = ex;
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        engines.clear();
        if (failure != null)
        {
            throw failure;
        }
    }

    public static ByteBuffer utf8(final String text)
    {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    public static String text(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Echoes header and segments back without copying, releasing the request once written. */
    public static final RequestHandler ECHO = request ->
    {
        final Message message = request.message();
        final ByteBuffer[] segments = new ByteBuffer[message.segmentCount()];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = message.segment(i);
        }
        if (request.isOneWay())
        {
            message.close();
            return;
        }
        request.respond(Outbound.of(message.header(), segments).releaseAfterSend(message));
    };

    /**
     * What {@code future} failed with, waiting up to 30 s: the cause of its failure, or the
     * {@link java.util.concurrent.CancellationException} (a {@code RequestCancelledException} is one) it was completed
     * with (from JDK 25 on, {@code get} wraps that in a new one; this hands back the stored one on every JDK).
     */
    public static Throwable failure(final java.util.concurrent.CompletableFuture<?> future)
        throws InterruptedException
    {
        try
        {
            future.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            return ex.getCause();
        }
        catch (final java.util.concurrent.CancellationException ex)
        {
            return ex.getCause() instanceof java.util.concurrent.CancellationException stored ? stored : ex;
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            throw new AssertionError("not failed within 30 s", ex);
        }
        throw new AssertionError("completed instead of failing");
    }
}
