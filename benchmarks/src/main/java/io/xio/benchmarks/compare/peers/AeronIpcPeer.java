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

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
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
