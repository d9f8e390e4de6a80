package io.xio.rdma.verbs;

import java.io.IOException;

/** Two links over two connected fake queue pairs, each on its own test context. Test thread only: it runs both. */
final class Loopback
{
    final TestContext contextA = new TestContext("a");
    final TestContext contextB = new TestContext("b");
    final FakeQueuePair qpA = new FakeQueuePair("a");
    final FakeQueuePair qpB = new FakeQueuePair("b");
    final Recorder inA = new Recorder();
    final Recorder inB = new Recorder();
    final VerbsLink a;
    final VerbsLink b;

    /** Both ends prepared, connected and saying hello; {@code start} also hands both their handlers. */
    Loopback(final boolean start) throws IOException
    {
        FakeQueuePair.connect(qpA, qpB);
        a = open(contextA, qpA);
        b = open(contextB, qpB);
        a.established();
        b.established();
        if (start)
        {
            a.start(inA);
            b.start(inB);
        }
    }

    /** A link as {@code DisniQueuePair.createLink} makes one: receives posted, not yet connected. */
    static VerbsLink open(final TestContext context, final FakeQueuePair qp) throws IOException
    {
        final VerbsLink link = new VerbsLink(context, qp, "rdma://" + qp.name);
        qp.link = link;
        link.prepare();
        return link;
    }

    /** Runs both ends' loop turns (flushes, completion polls) until neither has anything left to do. */
    void pump()
    {
        int work;
        do
        {
            work = contextA.runFlushes() + contextB.runFlushes() + qpA.poll() + qpB.poll();
        }
        while (work > 0);
    }
}
