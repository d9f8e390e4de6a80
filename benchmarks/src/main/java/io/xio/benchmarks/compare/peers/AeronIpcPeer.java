package io.xio.benchmarks.compare.peers;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.StreamLoop;
import io.xio.benchmarks.compare.Workload;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Aeron IPC between two JVMs: the server JVM embeds the media driver (shared threading mode, backing off when
 * idle) and echoes on one IPC stream what arrives on another; the client JVM attaches to the same driver
 * directory. Both sides busy-spin on their subscriptions, Aeron's way for lowest latency. One outstanding.
 *
 * <p>A {@link Workload#isStream() stream} workload: the server offers messages of the workload's size on one IPC
 * stream as fast as the publication takes them (yielding its CPU when it is back-pressured, so that the driver's
 * conductor, sharing it, can move the publisher's limit on), and the client's subscriber thread busy-polls them and
 * counts. Aeron has no demand: the subscriber's position and the term window are its flow control, so the workload's
 * demand is not used. The IPC term of 4 MiB makes 512 KiB the largest message (a term's eighth), and nothing here
 * reassembles fragments: larger messages are refused.
 */
public final class AeronIpcPeer implements Peer
{
    private static final String CHANNEL = "aeron:ipc";
    private static final int REQUESTS = 1001;
    private static final int RESPONSES = 1002;

    @Override
    public Server serve(final String variant, final Workload workload)
    {
        final String dir = "/dev/shm/xio-bench-aeron-" + UUID.randomUUID().toString().substring(0, 8);
        final MediaDriver driver = MediaDriver.launchEmbedded(new MediaDriver.Context().aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED).dirDeleteOnStart(true).dirDeleteOnShutdown(true)
            .ipcTermBufferLength(4 * 1024 * 1024));
        final Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir));
        if (workload.isStream())
        {
            return stream(dir, driver, aeron, workload);
        }
        final Subscription requests = aeron.addSubscription(CHANNEL, REQUESTS);
        final ExclusivePublication responses = aeron.addExclusivePublication(CHANNEL, RESPONSES);
        final UnsafeBuffer ack = new UnsafeBuffer(ByteBuffer.allocateDirect(workload.responseBytes()));
        final Thread echo = new Thread(() ->
        {
            final FragmentHandler handler = (buffer, offset, length, header) ->
            {
                if (workload.isEcho())
                {
                    offerUntilTaken(responses, buffer, offset, length);
                }
                else
                {
                    offerUntilTaken(responses, ack, 0, ack.capacity());
                }
            };
            while (!Thread.currentThread().isInterrupted())
            {
                if (requests.poll(handler, 16) == 0)
                {
                    Thread.onSpinWait();
                }
            }
        }, "aeron-echo");
        echo.start();
        return new Server()
        {
            @Override
            public String address()
            {
                return dir;
            }

            @Override
            public void close() throws InterruptedException
            {
                echo.interrupt();
                echo.join(TimeUnit.SECONDS.toMillis(5));
                aeron.close();
                driver.close();
            }
        };
    }

    /** The server of a stream workload: one publisher thread offering back to back. */
    private static Server stream(final String dir, final MediaDriver driver, final Aeron aeron, final Workload workload)
    {
        final ExclusivePublication messages = aeron.addExclusivePublication(CHANNEL, RESPONSES);
        if (workload.responseBytes() > messages.maxMessageLength())
        {
            messages.close();
            aeron.close();
            driver.close();
            throw new IllegalArgumentException("the Aeron peer sends messages of at most " +
                messages.maxMessageLength() + " B (its IPC term's eighth), not " + workload.responseBytes());
        }
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(workload.responseBytes()));
        final Thread publisher = new Thread(() ->
        {
            while (!Thread.currentThread().isInterrupted())
            {
                final long result = messages.offer(message, 0, message.capacity());
                if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
                {
                    return;
                }
                if (result < 0)
                {
                    Thread.yield(); // back-pressured or not connected: let the driver's conductor run
                }
            }
        }, "aeron-stream");
        publisher.start();
        return new Server()
        {
            @Override
            public String address()
            {
                return dir;
            }

            @Override
            public void close() throws InterruptedException
            {
                publisher.interrupt();
                publisher.join(TimeUnit.SECONDS.toMillis(5));
                aeron.close();
                driver.close();
            }
        };
    }

    /** The client of a stream workload: a thread that busy-polls the subscription and counts what it takes. */
    private static Measurement runStream(final String address, final Workload workload) throws Exception
    {
        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(address));
             Subscription messages = aeron.addSubscription(CHANNEL, RESPONSES))
        {
            awaitConnected(messages::isConnected);
            final StreamLoop.Counter counter = new StreamLoop.Counter();
            final FragmentHandler ignore = (buffer, offset, length, header) -> { };
            final Thread subscriber = new Thread(() ->
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    final int taken = messages.poll(ignore, 256);
                    if (taken == 0)
                    {
                        Thread.onSpinWait();
                    }
                    else
                    {
                        counter.add(taken);
                    }
                }
            }, "aeron-subscriber");
            subscriber.start();
            try
            {
                return StreamLoop.measure(workload, counter, () -> -1);
            }
            finally
            {
                subscriber.interrupt();
                subscriber.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
    }

    private static void awaitConnected(final java.util.function.BooleanSupplier connected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!connected.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("Aeron IPC streams did not connect within 10 s");
            }
            Thread.sleep(1);
        }
    }

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
        if (workload.isStream())
        {
            return runStream(address, workload);
        }
        if (workload.outstanding() != 1)
        {
            throw new IllegalArgumentException("the Aeron peer is a ping-pong: 1 outstanding only");
        }
        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(address));
             ExclusivePublication requests = aeron.addExclusivePublication(CHANNEL, REQUESTS);
             Subscription responses = aeron.addSubscription(CHANNEL, RESPONSES))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!requests.isConnected() || !responses.isConnected())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("Aeron IPC streams did not connect within 10 s");
                }
                Thread.sleep(1);
            }
            final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(workload.requestBytes()));
            final int[] answers = new int[1];
            final FragmentHandler handler = (buffer, offset, length, header) -> answers[0]++;
            return CallLoop.blocking(workload, () ->
            {
                offerUntilTaken(requests, payload, 0, payload.capacity());
                while (answers[0] == 0)
                {
                    if (responses.poll(handler, 1) == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
                answers[0] = 0;
            }, () -> Double.NaN);
        }
    }

    private static void offerUntilTaken(final Publication publication, final DirectBuffer buffer, final int offset,
        final int length)
    {
        long result;
        while ((result = publication.offer(buffer, offset, length)) < 0)
        {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
            {
                throw new IllegalStateException("Aeron publication refused the message: " + result);
            }
            Thread.onSpinWait();
        }
    }
}
