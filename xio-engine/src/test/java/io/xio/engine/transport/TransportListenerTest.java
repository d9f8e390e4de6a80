package io.xio.engine.transport;

import io.xio.engine.XioUri;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener is closed by its portal and again by its engine: the transport's stop must run once, since rdma's
 * releases a reference to an event channel that other connections share.
 */
class TransportListenerTest
{
    @Test
    void aListenerClosedTwiceStopsOnce()
    {
        final AtomicInteger stops = new AtomicInteger();
        final TransportListener listener = TransportListener.of(XioUri.parse("tcp://127.0.0.1:1"),
            stops::incrementAndGet);
        listener.close();
        listener.close();
        assertThat(stops).hasValue(1);
    }
}
