package io.xio.engine.transport.local;

import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One direction of an in-JVM connection: the writer passes buffer references, the reader copies them into
 * its own slabs (the one copy a socket would make) and reports how far it consumed, so the writer can reuse
 * its buffers. Single writer thread, single reader thread.
 */
final class LocalPipe
{
    final OneToOneConcurrentArrayQueue<ByteBuffer> chunks = new OneToOneConcurrentArrayQueue<>(1024);
    final AtomicLong consumed = new AtomicLong();
    volatile boolean closed;
    volatile LocalLink reader;
    volatile LocalLink writer;
}
