package io.xio.rdma.verbs;

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
import io.xio.engine.Outbound;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.RemoteRegion;
import io.xio.engine.transport.SendCompletion;
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
 * accepted or requested (so an RNR wait never happens) and feed the frame assembler. Receives complete in the
 * order posted, so the slots are a ring: a quarter of it is re-posted as one chained post_recv once its last
 * slot was consumed, not one call per message.
 *
 * <p>Credits: a message may only go when the peer has a receive posted for it. Every message starts with an
 * 8-byte header carrying how many receives its sender has posted in all (so credits return with traffic)
 * and flags. One credit is kept back for a header-only credit message, sent when half the receive slots
 * were re-posted unannounced or when the peer said it is about to run out. Sends are signalled every half
 * ring only (a completion frees all slots before it). A loop turn's messages go out in one chained
 * post_send.
 *
 * <p>Rendezvous: a direct buffer of {@link #RENDEZVOUS_MIN} bytes or more in the stream is not copied. Its
 * sender registers it and sends a descriptor (address, rkey, length) in its place; the receiver RDMA-READs
 * the bytes straight into the frame assembler's buffer, holds back later messages until the read is done,
 * then counts the read as done in a header, and only then does the sender release the buffer.
 *
 * <p>One-sided writes: a requester offers an output buffer that lies in a region registered through
 * {@code XioEngine.register} (its rkey goes in a DATA_DESCRIPTOR frame); the responder RDMA-WRITEs the response's
 * data there ({@link #commitInto}) and posts those writes before the SEND that carries the response frame, so
 * on this reliable connection the data is in place before the requester sees the frame. Write sources in
 * registered memory go as they are; small ones are copied into a send slot; large unregistered direct buffers
 * are registered for the one write. Owner context thread only.
 */
final class VerbsLink extends StreamLink
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsLink.class);
    static final int SLOT = 8 << 10;
    static final int SEND_SLOTS = 64;
    static final int RECV_SLOTS = 64;
    private static final int RECV_BATCH = RECV_SLOTS / 4;
    private static final int HEADER = 8;
    static final int RENDEZVOUS_MIN = 64 << 10;
    /** Smaller response data travels in the frame: a second work request would cost more than the copy saves. */
    static final int WRITE_MIN = 4 << 10;
    private static final int MAX_WRITES = 8;
    /** Each write group asks for a completion: a bound keeps the context's shared completion queue safe. */
    private static final int MAX_WRITE_GROUPS = 4;
    private static final int MAX_EXPOSED = 16;
    private static final int FLAG_HELLO = 1;
    private static final int FLAG_WANT_CREDIT = 2;
    private static final int FLAG_RENDEZVOUS = 4;
    private static final int READS_DONE_SHIFT = 8;
    private static final long RECEIVE = 1L << 31;
    private static final long READ = 1L << 30;
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
    private IbvMr sendMr;
    private IbvMr recvMr;
    private final SVCPostRecv[] receiveBatches = new SVCPostRecv[RECV_SLOTS / RECV_BATCH];
    private final SVCPostSend[] sendChains = new SVCPostSend[SEND_SLOTS + 1];
    private final long[] slotSequence = new long[SEND_SLOTS];
    private final int[] stagedSlot = new int[SEND_SLOTS];
    private final int[] stagedLength = new int[SEND_SLOTS];
    private final boolean[] stagedSignal = new boolean[SEND_SLOTS];
    private final int[] heldSlot = new int[RECV_SLOTS];
    private final int[] heldLength = new int[RECV_SLOTS];
    private final IbvMr[] exposedMr = new IbvMr[MAX_EXPOSED]; // null: in a registered application buffer
    private final long[] exposedStart = new long[MAX_EXPOSED];
    private SVCPostSend read;
    private final SVCPostSend[] writeChains = new SVCPostSend[MAX_WRITES + 1];
    // Write work requests posted and not known complete, oldest first: their sequence, the registration made for
    // them (or null) and, on a group's last one, whom to tell.
    private final long[] writeSequence = new long[SEND_SLOTS];
    private final IbvMr[] writeMr = new IbvMr[SEND_SLOTS];
    private final SendCompletion[] writeCompletion = new SendCompletion[SEND_SLOTS];
    // The source buffer of each write, held so its memory cannot be freed before the write completes.
    private final ByteBuffer[] writeSource = new ByteBuffer[SEND_SLOTS];
    private final boolean[] writeLast = new boolean[SEND_SLOTS];
    private int writeFirst;
    private int writeCount;
    private int writeGroups;
    private int staged;
    private int heldFirst;
    private int heldCount;
    private int exposedFirst;
    private int exposedCount;
    private long handedOver;
    private int nextArrival;
    private boolean reading;
    private long readAddress;
    private int readRkey;
    private int readLeft;
    private int readLength;
    private IbvMr readTarget;
    private int readsDone;
    private long head;
    private long tail;
    private long lastSignaled = -1;
    private int granted = 1; // the peer posts receives before connecting: at least the hello fits
    private int sent;
    private int posted;
    private int announced;
    private int peerSlot = HEADER + 8;
    private boolean peerWantsCredit;
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
        try
        {
            prepare();
        }
        catch (final IOException | RuntimeException ex)
        {
            try
            {
                id.destroyQP();
            }
            catch (final IOException destroy)
            {
                ex.addSuppressed(destroy);
            }
            releaseVerbs(); // what was made so far; the caller destroys the id
            throw ex;
        }
    }

    /** Registers the slots, posts every receive and builds the READ request. */
    private void prepare() throws IOException
    {
        sendMr = verbs.register(sendArea);
        recvMr = verbs.register(recvArea);
        for (int batch = 0; batch < receiveBatches.length; batch++)
        {
            final List<IbvRecvWR> wrs = new ArrayList<>(RECV_BATCH);
            for (int slot = batch * RECV_BATCH; slot < (batch + 1) * RECV_BATCH; slot++)
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
                wrs.add(wr);
            }
            receiveBatches[batch] = qp.postRecv(wrs, null);
            receiveBatches[batch].execute();
            posted += RECV_BATCH;
        }
        final IbvSendWR readWr = new IbvSendWR();
        readWr.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
        readWr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        final LinkedList<IbvSge> readSges = new LinkedList<>();
        readSges.add(new IbvSge());
        readWr.setSg_list(readSges);
        readWr.setNum_sge(1);
        final List<IbvSendWR> readWrs = new ArrayList<>(1);
        readWrs.add(readWr);
        read = qp.postSend(readWrs, null);
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
        deliverHeld();
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
            if (slot != nextArrival)
            {
                close(new ConnectionException("rdma connection " + remote + ": receive slot " + slot +
                    " completed before slot " + nextArrival));
                return;
            }
            nextArrival = (slot + 1) % RECV_SLOTS;
            if (handler == null || reading || heldCount > 0)
            {
                final int at = (heldFirst + heldCount++) % RECV_SLOTS;
                heldSlot[at] = slot;
                heldLength[at] = wc.getByte_len();
            }
            else
            {
                deliver(slot, wc.getByte_len());
            }
        }
        else
        {
            tail = slotSequence[(int)(low & ~READ)] + 1; // a signalled send: it and all before it are done
            if ((low & READ) != 0)
            {
                readCompleted();
            }
            writesDone();
        }
    }

    @Override
    public boolean exposeForWrite(final ByteBuffer buffer, final RemoteRegion region)
    {
        if (closed || !buffer.isDirect())
        {
            return false;
        }
        final long address = BufferUtil.address(buffer) + buffer.position();
        try
        {
            final IbvMr mr = verbs.registered(address, buffer.remaining());
            if (mr == null)
            {
                return false; // only registered application memory is offered: a registration per call costs more
            }
            region.set(address, mr.getRkey(), buffer.remaining());
            return true;
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot register the output buffer for {}; its response data travels in the frame", remote, ex);
            return false;
        }
    }

    @Override
    public boolean canWriteInto(final Outbound message)
    {
        final int count = message.segmentCount();
        if (closed || !established || count > MAX_WRITES || message.dataLength() < WRITE_MIN ||
            writeGroups >= MAX_WRITE_GROUPS || freeSlots() < count + 2)
        {
            return false; // two slots stay for the frame and a credit message
        }
        for (int i = 0; i < count; i++)
        {
            final ByteBuffer segment = message.segment(i);
            if (!segment.isDirect() && segment.remaining() > SLOT)
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public void commitInto(final RemoteRegion region, final ByteBuffer[] data, final int count,
        final SendCompletion completion)
    {
        boolean recorded = false;
        try
        {
            final SVCPostSend chain = chain(writeChains, count, IbvSendWR.IBV_WR_RDMA_WRITE);
            long remoteAddress = region.address();
            long bytes = 0;
            for (int i = 0; i < count; i++)
            {
                final ByteBuffer buffer = data[i];
                final int length = buffer.remaining();
                final int slot = (int)(head % SEND_SLOTS);
                IbvMr made = null;
                long address = buffer.isDirect() ? BufferUtil.address(buffer) + buffer.position() : 0;
                int lkey;
                final IbvMr kept = address != 0 && length > 0 ? verbs.registered(address, length) : null;
                if (kept != null)
                {
                    lkey = kept.getLkey();
                }
                else if (length <= SLOT)
                {
                    sendBuffer.putBytes(slot * SLOT, buffer, buffer.position(), length);
                    address = sendMr.getAddr() + (long)slot * SLOT;
                    lkey = sendMr.getLkey();
                }
                else
                {
                    made = verbs.register(address, length);
                    lkey = made.getLkey();
                }
                final boolean last = i == count - 1;
                final SVCPostSend.SendWRMod wr = chain.getWrMod(i);
                wr.setWr_id(((long)linkId << 32) | slot);
                wr.setSend_flags(last ? IbvSendWR.IBV_SEND_SIGNALED : 0);
                wr.getRdmaMod().setRemote_addr(remoteAddress);
                wr.getRdmaMod().setRkey(region.key());
                final SVCPostSend.SgeMod sge = wr.getSgeMod(0);
                sge.setAddr(address);
                sge.setLength(length);
                sge.setLkey(lkey);
                slotSequence[slot] = head;
                final int at = (writeFirst + writeCount++) % SEND_SLOTS;
                writeSequence[at] = head;
                writeMr[at] = made;
                writeSource[at] = buffer;
                writeLast[at] = last;
                writeCompletion[at] = last ? completion : null;
                if (last)
                {
                    lastSignaled = head;
                    recorded = true;
                    writeGroups++;
                }
                head++;
                remoteAddress += length;
                bytes += length;
            }
            chain.execute();
            context.counters().wrote(bytes);
        }
        catch (final IOException ex)
        {
            close(new ConnectionException("rdma connection " + remote + " cannot write into the peer's buffer", ex));
            if (!recorded && completion != null)
            {
                completion.onSendComplete(false);
            }
        }
        commit();
    }

    /** Releases what writes the send queue has finished with. */
    private void writesDone()
    {
        while (writeCount > 0 && writeSequence[writeFirst] < tail)
        {
            final int at = writeFirst;
            writeFirst = (writeFirst + 1) % SEND_SLOTS;
            writeCount--;
            finishWrite(at, true);
        }
    }

    private void finishWrite(final int at, final boolean written)
    {
        final IbvMr mr = writeMr[at];
        final SendCompletion completion = writeCompletion[at];
        writeMr[at] = null;
        writeCompletion[at] = null;
        writeSource[at] = null;
        if (writeLast[at])
        {
            writeLast[at] = false;
            writeGroups--;
        }
        if (mr != null)
        {
            ContextVerbs.deregister(mr);
        }
        if (completion != null)
        {
            completion.onSendComplete(written);
        }
    }

    /** Delivers messages held back (before start, or behind a read), until a read starts again. */
    private void deliverHeld()
    {
        while (heldCount > 0 && !reading && !closed && handler != null)
        {
            final int at = heldFirst;
            heldFirst = (heldFirst + 1) % RECV_SLOTS;
            heldCount--;
            deliver(heldSlot[at], heldLength[at]);
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
        for (int done = flags >>> READS_DONE_SHIFT; done > 0 && exposedCount > 0; done--)
        {
            if (exposedMr[exposedFirst] != null)
            {
                ContextVerbs.deregister(exposedMr[exposedFirst]);
            }
            exposedMr[exposedFirst] = null;
            exposedFirst = (exposedFirst + 1) % MAX_EXPOSED;
            exposedCount--;
        }
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
        else if ((flags & FLAG_RENDEZVOUS) != 0)
        {
            readAddress = recvBuffer.getLong(offset + HEADER);
            readRkey = recvBuffer.getInt(offset + HEADER + 8);
            readLeft = recvBuffer.getInt(offset + HEADER + 12);
            reading = readLeft > 0;
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
        if ((slot + 1) % RECV_BATCH != 0)
        {
            return;
        }
        try
        {
            receiveBatches[slot / RECV_BATCH].execute();
            posted += RECV_BATCH;
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
        if (reading && readTarget == null)
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
        final int unannounced = posted - announced;
        if (!closed && (readsDone > 0 || unannounced > 0 && (peerWantsCredit || unannounced >= RECV_SLOTS / 2)) &&
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
            if (exposable(buffers[index]))
            {
                expose(buffers[index], base);
                index++;
                stage(HEADER + 16, FLAG_RENDEZVOUS | (credits() <= 2 ? FLAG_WANT_CREDIT : 0));
                continue;
            }
            int fill = 0;
            while (index < to && fill < capacity && !exposable(buffers[index]))
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
            handedOver += fill;
            stage(HEADER + fill, credits() <= 2 ? FLAG_WANT_CREDIT : 0);
        }
        while (index < to && !buffers[index].hasRemaining())
        {
            index++;
        }
        transmitted(index);
        post();
    }

    private boolean exposable(final ByteBuffer buffer)
    {
        return buffer.isDirect() && buffer.remaining() >= RENDEZVOUS_MIN && exposedCount < MAX_EXPOSED;
    }

    /** Registers the buffer's remaining bytes and writes their descriptor at {@code at}. */
    private void expose(final ByteBuffer buffer, final int at) throws IOException
    {
        final int length = buffer.remaining();
        final long address = BufferUtil.address(buffer) + buffer.position();
        final IbvMr kept = verbs.registered(address, length);
        final IbvMr mr = kept != null ? kept : verbs.register(address, length);
        final int slot = (exposedFirst + exposedCount++) % MAX_EXPOSED;
        exposedMr[slot] = kept != null ? null : mr;
        exposedStart[slot] = handedOver;
        handedOver += length;
        buffer.position(buffer.limit());
        sendBuffer.putLong(at, address);
        sendBuffer.putInt(at + 8, mr.getRkey());
        sendBuffer.putInt(at + 12, length);
    }

    /** Reads the next piece of the peer's exposed bytes straight into where the assembler wants them. */
    private void startRead()
    {
        if (closed || freeSlots() == 0)
        {
            return; // retried after the next completion frees a slot
        }
        final ByteBuffer target = assembler.writable();
        final int length = Math.min(readLeft, target.remaining());
        try
        {
            readTarget = verbs.register(BufferUtil.address(target) + target.position(), length);
            readLength = length;
            final int slot = (int)(head % SEND_SLOTS);
            slotSequence[slot] = head;
            lastSignaled = head;
            head++;
            final SVCPostSend.SendWRMod wr = read.getWrMod(0);
            wr.setWr_id(((long)linkId << 32) | READ | slot);
            final SVCPostSend.SgeMod sge = wr.getSgeMod(0);
            sge.setAddr(readTarget.getAddr());
            sge.setLength(length);
            sge.setLkey(readTarget.getLkey());
            wr.getRdmaMod().setRemote_addr(readAddress);
            wr.getRdmaMod().setRkey(readRkey);
            read.execute();
        }
        catch (final IOException ex)
        {
            close(new ConnectionException("rdma connection " + remote + " cannot read the peer's data", ex));
        }
    }

    private void readCompleted()
    {
        ContextVerbs.deregister(readTarget);
        readTarget = null;
        readAddress += readLength;
        readLeft -= readLength;
        bytesArrived();
        assembler.received(readLength, handler);
        if (closed)
        {
            return;
        }
        if (readLeft > 0)
        {
            startRead();
            return;
        }
        reading = false;
        readsDone++;
        deliverHeld();
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
        sendBuffer.putInt(slot * SLOT + 4, flags | readsDone << READS_DONE_SHIFT);
        readsDone = 0;
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
            final SVCPostSend chain = chain(sendChains, staged, IbvSendWR.IBV_WR_SEND);
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

    /** The stateful post_send of {@code length} work requests of {@code opcode}, made on first use and kept. */
    private SVCPostSend chain(final SVCPostSend[] cache, final int length, final int opcode) throws IOException
    {
        SVCPostSend chain = cache[length];
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
                wr.setOpcode(opcode);
                wr.setSg_list(sges);
                wr.setNum_sge(1);
                wrs.add(wr);
            }
            chain = qp.postSend(wrs, null);
            cache[length] = chain;
        }
        return chain;
    }

    @Override
    protected long releasedPosition()
    {
        return exposedCount > 0 ? exposedStart[exposedFirst] : handedOver;
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
        releaseVerbs();
    }

    /** After the queue pair is gone (nothing can touch the memory any more): calls, registrations, the link id. */
    private void releaseVerbs()
    {
        for (; writeCount > 0; writeCount--)
        {
            finishWrite(writeFirst, false);
            writeFirst = (writeFirst + 1) % SEND_SLOTS;
        }
        for (final SVCPostSend chain : writeChains)
        {
            if (chain != null)
            {
                chain.free();
            }
        }
        if (readTarget != null)
        {
            ContextVerbs.deregister(readTarget);
            readTarget = null;
        }
        for (; exposedCount > 0; exposedCount--)
        {
            if (exposedMr[exposedFirst] != null)
            {
                ContextVerbs.deregister(exposedMr[exposedFirst]);
            }
            exposedMr[exposedFirst] = null;
            exposedFirst = (exposedFirst + 1) % MAX_EXPOSED;
        }
        for (final SVCPostRecv batch : receiveBatches)
        {
            if (batch != null)
            {
                batch.free();
            }
        }
        for (final SVCPostSend chain : sendChains)
        {
            if (chain != null)
            {
                chain.free();
            }
        }
        if (read != null)
        {
            read.free();
        }
        if (sendMr != null)
        {
            ContextVerbs.deregister(sendMr);
        }
        if (recvMr != null)
        {
            ContextVerbs.deregister(recvMr);
        }
        verbs.remove(linkId);
    }

    @Override
    public String remoteAddress()
    {
        return remote;
    }
}
