package io.xio.engine.transport.rdma.verbs;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import io.xio.engine.ConnectionException;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.stream.StreamLink;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

/**
 * One RC queue pair. The frame stream is cut into messages of at most one receive slot, copied into
 * registered send slots and SENT; the peer's receives land in slots posted before the connection was
 * accepted or requested (so an RNR wait never happens) and feed the frame assembler.
 *
 * <p>Credits: a message may only go when the peer has a receive posted for it. Every message starts with an
 * 8-byte header carrying how many receives its sender has posted in all (so credits return with traffic)
 * and flags. One credit is kept back for a header-only credit message, sent when half the receive slots
 * were re-posted unannounced or when the peer said it is about to run out. Sends are signalled every half
 * ring only (a completion frees all slots before it). A loop turn's messages go out in one chained
 * post_send. Owner context thread only.
 */
final class VerbsLink extends StreamLink
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsLink.class);
    static final int SLOT = 8 << 10;
    static final int SEND_SLOTS = 64;
    static final int RECV_SLOTS = 64;
    private static final int HEADER = 8;
    private static final int FLAG_HELLO = 1;
    private static final int FLAG_WANT_CREDIT = 2;
    private static final long RECEIVE = 1L << 31;
    private static final int STATUS_FLUSHED = 5;

    private final VerbsTransport transport;
    private final ContextVerbs verbs;
    private final RdmaCmId id;
    private final String remote;
    private final int linkId;
    private final IbvQP qp;
    private final ByteBuffer sendArea = BufferUtil.allocateDirectAligned(SEND_SLOTS * SLOT, 4096);
    private final ByteBuffer recvArea = BufferUtil.allocateDirectAligned(RECV_SLOTS * SLOT, 4096);
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(sendArea);
    private final UnsafeBuffer recvBuffer = new UnsafeBuffer(recvArea);
    private final IbvMr sendMr;
    private final IbvMr recvMr;
    private final SVCPostRecv[] receives = new SVCPostRecv[RECV_SLOTS];
    private final SVCPostSend[] sendChains = new SVCPostSend[SEND_SLOTS + 1];
    private final long[] slotSequence = new long[SEND_SLOTS];
    private final int[] stagedSlot = new int[SEND_SLOTS];
    private final int[] stagedLength = new int[SEND_SLOTS];
    private final boolean[] stagedSignal = new boolean[SEND_SLOTS];
    private final int[] earlySlot = new int[RECV_SLOTS];
    private final int[] earlyLength = new int[RECV_SLOTS];
    private int staged;
    private int early;
    private long head;
    private long tail;
    private long lastSignaled = -1;
    private int granted = 1; // the peer posts receives before connecting: at least the hello fits
    private int sent;
    private int posted;
    private int announced;
    private int peerSlot = HEADER + 8;
    private boolean peerWantsCredit;
    private long copied;
    private boolean established;
    boolean touched;

    VerbsLink(final TransportContext context, final VerbsTransport transport, final ContextVerbs verbs,
        final RdmaCmId id, final String remote) throws IOException
    {
        super(context);
        this.transport = transport;
        this.verbs = verbs;
        this.id = id;
        this.remote = remote;
        final IbvQPInitAttr attributes = new IbvQPInitAttr();
        attributes.cap().setMax_send_wr(SEND_SLOTS);
        attributes.cap().setMax_recv_wr(RECV_SLOTS);
        attributes.cap().setMax_send_sge(1);
        attributes.cap().setMax_recv_sge(1);
        attributes.cap().setMax_inline_data(0);
        attributes.setQp_type(IbvQP.IBV_QPT_RC);
        attributes.setSend_cq(verbs.cq());
        attributes.setRecv_cq(verbs.cq());
        this.qp = id.createQP(verbs.pd(), attributes);
        if (qp == null)
        {
            throw new IOException("rdma_create_qp failed for " + remote);
        }
        this.linkId = verbs.add(this);
        this.sendMr = verbs.register(sendArea);
        this.recvMr = verbs.register(recvArea);
        for (int slot = 0; slot < RECV_SLOTS; slot++)
        {
            final IbvSge sge = new IbvSge();
            sge.setAddr(recvMr.getAddr() + (long)slot * SLOT);
            sge.setLength(SLOT);
            sge.setLkey(recvMr.getLkey());
            final LinkedList<IbvSge> sges = new LinkedList<>();
            sges.add(sge);
            final IbvRecvWR wr = new IbvRecvWR();
            wr.setWr_id(((long)linkId << 32) | RECEIVE | slot);
            wr.setSg_list(sges);
            wr.setNum_sge(1);
            final List<IbvRecvWR> wrs = new ArrayList<>(1);
            wrs.add(wr);
            receives[slot] = qp.postRecv(wrs, null);
            receives[slot].execute();
            posted++;
        }
    }

    /** rdma_cm reported the connection up: say hello (our receive slot size; the header has our credits). */
    void established()
    {
        established = true;
        final int slot = (int)(head % SEND_SLOTS);
        sendBuffer.putInt(slot * SLOT + HEADER, SLOT);
        sendBuffer.putInt(slot * SLOT + HEADER + 4, 1);
        stage(HEADER + 8, FLAG_HELLO);
        post();
    }

    @Override
    public void start(final LinkHandler handler)
    {
        super.start(handler);
        for (int i = 0; i < early && !closed; i++)
        {
            deliver(earlySlot[i], earlyLength[i]);
        }
        early = 0;
        afterCompletions();
    }

    /** Called by the context's completion poll for each of this link's completions. */
    void onCompletion(final IbvWC wc)
    {
        if (closed)
        {
            return;
        }
        if (wc.getStatus() != 0)
        {
            final int status = wc.getStatus();
            close(new ConnectionException("rdma connection " + remote + (status == STATUS_FLUSHED ?
                " was torn down (work flushed)" : " failed: completion status " + status + ", vendor error " +
                wc.getVendor_err())));
            return;
        }
        final long low = wc.getWr_id() & 0xFFFF_FFFFL;
        if ((low & RECEIVE) != 0)
        {
            final int slot = (int)(low & ~RECEIVE);
            if (handler == null)
            {
                earlySlot[early] = slot;
                earlyLength[early++] = wc.getByte_len();
            }
            else
            {
                deliver(slot, wc.getByte_len());
            }
        }
        else
        {
            tail = slotSequence[(int)low] + 1; // a signalled send: it and all before it are done
        }
    }

    private void deliver(final int slot, final int length)
    {
        final int offset = slot * SLOT;
        if (length < HEADER)
        {
            close(new ConnectionException("rdma peer " + remote + " sent a message of " + length + " bytes"));
            return;
        }
        final int peerPosted = recvBuffer.getInt(offset);
        if (peerPosted - granted > 0)
        {
            granted = peerPosted;
        }
        final int flags = recvBuffer.getInt(offset + 4);
        if ((flags & FLAG_WANT_CREDIT) != 0)
        {
            peerWantsCredit = true;
        }
        if ((flags & FLAG_HELLO) != 0)
        {
            peerSlot = Math.min(SLOT, recvBuffer.getInt(offset + HEADER));
            if (peerSlot <= HEADER)
            {
                close(new ConnectionException("rdma peer " + remote + " announced receive slots of " + peerSlot +
                    " bytes"));
                return;
            }
        }
        else if (length > HEADER)
        {
            bytesArrived();
            assembler.feed(recvBuffer, offset + HEADER, length - HEADER, handler);
        }
        if (closed)
        {
            return;
        }
        try
        {
            receives[slot].execute();
            posted++;
        }
        catch (final IOException ex)
        {
            close(new ConnectionException("rdma connection " + remote + " cannot re-post a receive", ex));
        }
    }

    /** After a poll that touched this link: send what credits now allow, return credits the peer needs. */
    void afterCompletions()
    {
        if (closed || handler == null)
        {
            return;
        }
        if (hasUntransmitted())
        {
            flush();
        }
        else
        {
            releaseSent();
        }
        final int unannounced = posted - announced;
        if (!closed && unannounced > 0 && (peerWantsCredit || unannounced >= RECV_SLOTS / 2) &&
            credits() >= 1 && freeSlots() > 0)
        {
            stage(HEADER, 0);
            post();
        }
    }

    @Override
    protected void transmit(final ByteBuffer[] buffers, final int from, final int to) throws IOException
    {
        int index = from;
        final int capacity = peerSlot - HEADER;
        while (index < to && credits() >= 2 && freeSlots() > 0 && staged < SEND_SLOTS)
        {
            final int base = (int)(head % SEND_SLOTS) * SLOT + HEADER;
            int fill = 0;
            while (index < to && fill < capacity)
            {
                final ByteBuffer buffer = buffers[index];
                final int n = Math.min(buffer.remaining(), capacity - fill);
                sendBuffer.putBytes(base + fill, buffer, buffer.position(), n);
                buffer.position(buffer.position() + n);
                fill += n;
                if (!buffer.hasRemaining())
                {
                    index++;
                }
            }
            copied += fill;
            stage(HEADER + fill, credits() <= 2 ? FLAG_WANT_CREDIT : 0);
        }
        while (index < to && !buffers[index].hasRemaining())
        {
            index++;
        }
        transmitted(index);
        post();
    }

    private int credits()
    {
        return established ? granted - sent : 0;
    }

    private int freeSlots()
    {
        return SEND_SLOTS - (int)(head - tail);
    }

    /** Queues the message in the current head slot (its payload already written) for the next post. */
    private void stage(final int length, final int flags)
    {
        final int slot = (int)(head % SEND_SLOTS);
        sendBuffer.putInt(slot * SLOT, posted);
        sendBuffer.putInt(slot * SLOT + 4, flags);
        announced = posted;
        peerWantsCredit = false;
        final boolean signal = head - lastSignaled >= SEND_SLOTS / 2;
        if (signal)
        {
            lastSignaled = head;
        }
        slotSequence[slot] = head;
        stagedSlot[staged] = slot;
        stagedLength[staged] = length;
        stagedSignal[staged] = signal;
        staged++;
        head++;
        sent++;
    }

    /** Posts the staged messages as one chain of work requests. */
    private void post()
    {
        if (staged == 0 || closed)
        {
            staged = 0;
            return;
        }
        try
        {
            final SVCPostSend chain = chain(staged);
            long bytes = 0;
            for (int i = 0; i < staged; i++)
            {
                final SVCPostSend.SendWRMod wr = chain.getWrMod(i);
                wr.setWr_id(((long)linkId << 32) | stagedSlot[i]);
                wr.setSend_flags(stagedSignal[i] ? IbvSendWR.IBV_SEND_SIGNALED : 0);
                final SVCPostSend.SgeMod sge = wr.getSgeMod(0);
                sge.setAddr(sendMr.getAddr() + (long)stagedSlot[i] * SLOT);
                sge.setLength(stagedLength[i]);
                sge.setLkey(sendMr.getLkey());
                bytes += stagedLength[i];
            }
            staged = 0;
            chain.execute();
            context.counters().wrote(bytes);
        }
        catch (final IOException ex)
        {
            staged = 0;
            close(new ConnectionException("rdma connection " + remote + " cannot post sends", ex));
        }
    }

    private SVCPostSend chain(final int length) throws IOException
    {
        SVCPostSend chain = sendChains[length];
        if (chain == null)
        {
            final List<IbvSendWR> wrs = new ArrayList<>(length);
            for (int i = 0; i < length; i++)
            {
                final IbvSge sge = new IbvSge();
                sge.setAddr(sendMr.getAddr());
                sge.setLength(HEADER);
                sge.setLkey(sendMr.getLkey());
                final LinkedList<IbvSge> sges = new LinkedList<>();
                sges.add(sge);
                final IbvSendWR wr = new IbvSendWR();
                wr.setOpcode(IbvSendWR.IBV_WR_SEND);
                wr.setSg_list(sges);
                wr.setNum_sge(1);
                wrs.add(wr);
            }
            chain = qp.postSend(wrs, null);
            sendChains[length] = chain;
        }
        return chain;
    }

    @Override
    protected long releasedPosition()
    {
        return copied;
    }

    /** rdma_cm says the connection ended: deliver what already arrived, then close. */
    void disconnected(final String event)
    {
        if (!closed)
        {
            verbs.poll();
            close(new ConnectionException("rdma peer " + remote + " disconnected (" + event + ")"));
        }
    }

    @Override
    protected void closeChannel()
    {
        transport.forget(id);
        try
        {
            id.disconnect();
        }
        catch (final IOException ex)
        {
            LOG.debug("rdma_disconnect of {} failed", remote, ex);
        }
        try
        {
            id.destroyQP();
            id.destroyId();
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot destroy the queue pair of {}", remote, ex);
        }
        transport.released();
        try
        {
            for (final SVCPostRecv receive : receives)
            {
                if (receive != null)
                {
                    receive.free();
                }
            }
            for (final SVCPostSend chain : sendChains)
            {
                if (chain != null)
                {
                    chain.free();
                }
            }
            sendMr.deregMr().execute().free();
            recvMr.deregMr().execute().free();
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot deregister the memory of {}", remote, ex);
        }
        verbs.remove(linkId);
    }

    @Override
    public String remoteAddress()
    {
        return remote;
    }
}
