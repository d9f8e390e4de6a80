package io.xio.rdma.verbs;

import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.RemoteRegion;
import io.xio.engine.transport.SendCompletion;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.stream.StreamLink;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One RC queue pair as a {@link io.xio.engine.transport.TransportLink}, coordinating parts with one job each:
 * the {@link Outbox} cuts the frame stream into messages in the {@link SendRing} as far as {@link Credits} allow;
 * the {@link Inbox} reads the peer's out of the {@link ReceiveRing} into the frame assembler; large buffers go
 * by rendezvous ({@link ExposedBuffers} here, the peer's {@link RendezvousReader} there); the
 * {@link WriteTracker} writes response data straight into a requester's buffer. Owner context thread only.
 */
final class VerbsLink extends StreamLink
{
    private static final int STATUS_FLUSHED = 5;

    private final QueuePair qp;
    private final String remote;
    private final SendRing sends;
    private final ReceiveRing receives;
    private final Credits credits = new Credits(ReceiveRing.SLOTS);
    private final RendezvousReader reader;
    private final ExposedBuffers exposed;
    private final WriteTracker writes;
    private final Outbox outbox;
    private final Inbox inbox;
    /** Whether the completion poll under way has seen this link: {@link ContextVerbs}' bookkeeping. */
    boolean touched;

    VerbsLink(final TransportContext context, final QueuePair qp, final String remote)
    {
        super(context);
        this.qp = qp;
        this.remote = remote;
        this.sends = new SendRing(qp);
        this.receives = new ReceiveRing(qp);
        this.reader = new RendezvousReader(qp, sends, assembler);
        this.exposed = new ExposedBuffers(qp, remote);
        this.writes = new WriteTracker(qp, sends);
        this.outbox = new Outbox(sends, credits, reader, exposed);
        this.inbox = new Inbox(receives, credits, exposed, reader, remote);
    }

    /** Registers the slots and posts every receive: before the connection is accepted or requested. */
    void prepare() throws IOException
    {
        sends.register();
        credits.posted(receives.postAll());
    }

    /** rdma_cm reported the connection up: say hello (our receive slot size; the header has our credits). */
    void established()
    {
        credits.established();
        outbox.hello();
        post();
    }

    @Override
    public void start(final LinkHandler handler)
    {
        super.start(handler);
        deliverWaiting();
        afterCompletions();
    }

    /** One of this link's completions, from the completion poll: the low half of its work request id. */
    void onCompletion(final int id, final int status, final int byteLength, final int vendorError)
    {
        if (closed)
        {
            return;
        }
        if (status != 0)
        {
            fail(status == STATUS_FLUSHED ? " was torn down (work flushed)" :
                " failed: completion status " + status + ", vendor error " + vendorError, null);
            return;
        }
        if (WorkId.isReceive(id))
        {
            final int slot = WorkId.slot(id);
            if (receives.arrived(slot, byteLength))
            {
                deliverWaiting();
            }
            else
            {
                fail(": receive slot " + slot + " completed before slot " + receives.next(), null);
            }
            return;
        }
        sends.completed(WorkId.slot(id));
        if (WorkId.isRead(id))
        {
            readCompleted();
        }
        writes.completedBefore(sends.tail());
    }

    /** Delivers the messages that arrived, in order, until a read starts: later bytes follow the read's. */
    private void deliverWaiting()
    {
        while (receives.waiting() && !reader.reading() && !closed && handler != null)
        {
            final int slot = receives.take();
            deliver(slot, receives.length(slot));
        }
    }

    private void deliver(final int slot, final int length)
    {
        final int bytes;
        try
        {
            bytes = inbox.take(slot, length);
        }
        catch (final ConnectionException ex)
        {
            close(ex);
            return;
        }
        if (bytes > 0)
        {
            bytesArrived();
            assembler.feed(receives.buffer(), ReceiveRing.offset(slot) + Wire.HEADER, bytes, handler);
        }
        if (closed)
        {
            return;
        }
        try
        {
            credits.posted(receives.consumed(slot));
        }
        catch (final IOException ex)
        {
            fail(" cannot re-post a receive", ex);
        }
    }

    /** After a poll that touched this link: send what credits now allow, return credits the peer needs. */
    void afterCompletions()
    {
        if (closed || handler == null)
        {
            return;
        }
        if (reader.wantsRead())
        {
            startRead();
        }
        if (hasUntransmitted())
        {
            flush();
        }
        else
        {
            releaseSent();
        }
        if (!closed && outbox.creditMessage())
        {
            post();
        }
    }

    @Override
    protected void transmit(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        transmitted(outbox.pack(buffers, from, to));
        post();
    }

    /** Posts the staged messages as one chain of work requests. */
    private void post()
    {
        try
        {
            sends.post(closed, context.counters());
        }
        catch (final IOException ex)
        {
            fail(" cannot post sends", ex);
        }
    }

    /** Reads the next piece of the peer's exposed bytes straight into where the assembler wants them. */
    private void startRead()
    {
        try
        {
            reader.read();
        }
        catch (final IOException ex)
        {
            fail(" cannot read the peer's data", ex);
        }
    }

    private void readCompleted()
    {
        bytesArrived();
        reader.completed(handler);
        if (closed)
        {
            return;
        }
        if (reader.reading())
        {
            startRead();
        }
        else
        {
            deliverWaiting();
        }
    }

    @Override
    public boolean exposeForWrite(final ByteBuffer buffer, final RemoteRegion region)
    {
        return !closed && exposed.forWrite(buffer, region);
    }

    @Override
    public boolean canWriteInto(final Outbound message)
    {
        return !closed && credits.isEstablished() && writes.canWrite(message);
    }

    @Override
    public void commitInto(final RemoteRegion region, final ByteBuffer[] data, final int count,
        final SendCompletion completion)
    {
        final int groups = writes.groups();
        try
        {
            context.counters().wrote(writes.write(region, data, count, completion));
        }
        catch (final IOException ex)
        {
            final boolean recorded = writes.groups() > groups; // then closing tells its completion
            fail(" cannot write into the peer's buffer", ex);
            if (!recorded && completion != null)
            {
                completion.onSendComplete(false);
            }
        }
        commit();
    }

    private void fail(final String what, final Throwable cause)
    {
        close(new ConnectionException("rdma connection " + remote + what, cause));
    }

    @Override
    protected long releasedPosition()
    {
        return exposed.releasedPosition();
    }

    /** rdma_cm says the connection ended: deliver what already arrived, then close. */
    void disconnected(final String event)
    {
        if (!closed)
        {
            qp.pollCompletions();
            close(new ConnectionException("rdma peer " + remote + " disconnected (" + event + ")"));
        }
    }

    @Override
    protected void closeChannel()
    {
        qp.close();
        releaseParts();
        qp.release();
    }

    /** After the queue pair is gone (nothing can touch the memory any more): calls and registrations. */
    void releaseParts()
    {
        writes.release();
        reader.release();
        exposed.release();
        receives.release();
        sends.release();
    }

    @Override
    public String remoteAddress()
    {
        return remote;
    }
}
