package io.xio.rdma.verbs;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import io.xio.engine.transport.TransportContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

/**
 * A {@link QueuePair} on DiSNI: one RC queue pair of an rdma_cm id, on the protection domain and completion
 * queue of its context's {@link ContextVerbs}, which routes completions back by the link id in the high half of
 * each work request id. Posting goes through DiSNI's stateful calls, made once and kept: a SEND chain and a
 * WRITE chain per length, the READ, a chain per receive batch; work requests are set into plain arrays first,
 * since a chain is chosen by its length. Owner context thread only.
 */
final class DisniQueuePair implements QueuePair
{
    private static final Logger LOG = LoggerFactory.getLogger(DisniQueuePair.class);

    private final VerbsTransport transport;
    private final ContextVerbs verbs;
    private final RdmaCmId id;
    private final String remote;
    private final IbvQP qp;
    private final SVCPostSend[] sendChains = new SVCPostSend[SendRing.SLOTS + 1];
    private final SVCPostSend[] writeChains = new SVCPostSend[WriteTracker.MAX_WRITES + 1];
    private final WorkRequests sends = new WorkRequests(SendRing.SLOTS);
    private final WorkRequests writes = new WorkRequests(WriteTracker.MAX_WRITES);
    private final List<SVCPostRecv> receives = new ArrayList<>();
    private SVCPostSend read;
    private long linkBits;
    private int linkId;

    private DisniQueuePair(final VerbsTransport transport, final ContextVerbs verbs, final RdmaCmId id,
        final String remote) throws IOException
    {
        this.transport = transport;
        this.verbs = verbs;
        this.id = id;
        this.remote = remote;
        final IbvQPInitAttr attributes = new IbvQPInitAttr();
        attributes.cap().setMax_send_wr(SendRing.SLOTS);
        attributes.cap().setMax_recv_wr(ReceiveRing.SLOTS);
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
    }

    /**
     * A link over a new queue pair of {@code id}, its receives posted: ready for rdma_cm to accept or connect.
     * On failure the queue pair is gone again; the caller still owns {@code id}.
     */
    static VerbsLink createLink(final TransportContext context, final VerbsTransport transport,
        final ContextVerbs verbs, final RdmaCmId id, final String remote) throws IOException
    {
        final DisniQueuePair qp = new DisniQueuePair(transport, verbs, id, remote);
        final VerbsLink link = new VerbsLink(context, qp, remote);
        qp.linkId = verbs.add(link);
        qp.linkBits = (long)qp.linkId << 32;
        try
        {
            qp.read = qp.chain(IbvSendWR.IBV_WR_RDMA_READ, 1);
            link.prepare();
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
            link.releaseParts(); // what was made so far
            qp.release();
            throw ex;
        }
        return link;
    }

    @Override
    public Registration register(final long address, final int length) throws IOException
    {
        return verbs.register(address, length);
    }

    @Override
    public Registration registered(final long address, final int length) throws IOException
    {
        return verbs.registered(address, length);
    }

    @Override
    public void deregister(final Registration registration)
    {
        ContextVerbs.deregister(((IbvRegistration)registration).mr);
    }

    @Override
    public int prepareReceives(final int firstId, final long address, final int slotLength, final int count,
        final int lkey) throws IOException
    {
        final List<IbvRecvWR> wrs = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final IbvSge sge = new IbvSge();
            sge.setAddr(address + (long)i * slotLength);
            sge.setLength(slotLength);
            sge.setLkey(lkey);
            final LinkedList<IbvSge> sges = new LinkedList<>();
            sges.add(sge);
            final IbvRecvWR wr = new IbvRecvWR();
            wr.setWr_id(wrId(firstId + i));
            wr.setSg_list(sges);
            wr.setNum_sge(1);
            wrs.add(wr);
        }
        receives.add(qp.postRecv(wrs, null));
        return receives.size() - 1;
    }

    @Override
    public void postReceives(final int chain) throws IOException
    {
        receives.get(chain).execute();
    }

    @Override
    public void send(final int index, final int id, final long address, final int length, final int lkey,
        final boolean signaled)
    {
        sends.set(index, id, address, length, lkey, 0, 0, signaled);
    }

    @Override
    public void postSends(final int count) throws IOException
    {
        post(sendChains, IbvSendWR.IBV_WR_SEND, sends, count);
    }

    @Override
    public void write(final int index, final int id, final long address, final int length, final int lkey,
        final long remoteAddress, final int rkey, final boolean signaled)
    {
        writes.set(index, id, address, length, lkey, remoteAddress, rkey, signaled);
    }

    @Override
    public void postWrites(final int count) throws IOException
    {
        post(writeChains, IbvSendWR.IBV_WR_RDMA_WRITE, writes, count);
    }

    @Override
    public void postRead(final int id, final long address, final int length, final int lkey,
        final long remoteAddress, final int rkey) throws IOException
    {
        final SVCPostSend.SendWRMod wr = read.getWrMod(0);
        wr.setWr_id(wrId(id));
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        final SVCPostSend.SgeMod sge = wr.getSgeMod(0);
        sge.setAddr(address);
        sge.setLength(length);
        sge.setLkey(lkey);
        wr.getRdmaMod().setRemote_addr(remoteAddress);
        wr.getRdmaMod().setRkey(rkey);
        read.execute();
    }

    private void post(final SVCPostSend[] cache, final int opcode, final WorkRequests requests, final int count)
        throws IOException
    {
        SVCPostSend chain = cache[count];
        if (chain == null)
        {
            chain = chain(opcode, count);
            cache[count] = chain;
        }
        final boolean rdma = opcode != IbvSendWR.IBV_WR_SEND;
        for (int i = 0; i < count; i++)
        {
            final SVCPostSend.SendWRMod wr = chain.getWrMod(i);
            wr.setWr_id(wrId(requests.id[i]));
            wr.setSend_flags(requests.signaled[i] ? IbvSendWR.IBV_SEND_SIGNALED : 0);
            final SVCPostSend.SgeMod sge = wr.getSgeMod(0);
            sge.setAddr(requests.address[i]);
            sge.setLength(requests.length[i]);
            sge.setLkey(requests.lkey[i]);
            if (rdma)
            {
                wr.getRdmaMod().setRemote_addr(requests.remoteAddress[i]);
                wr.getRdmaMod().setRkey(requests.rkey[i]);
            }
        }
        chain.execute();
    }

    /** The stateful post_send of {@code length} work requests of {@code opcode}; every field is set before use. */
    private SVCPostSend chain(final int opcode, final int length) throws IOException
    {
        final List<IbvSendWR> wrs = new ArrayList<>(length);
        for (int i = 0; i < length; i++)
        {
            final LinkedList<IbvSge> sges = new LinkedList<>();
            sges.add(new IbvSge());
            final IbvSendWR wr = new IbvSendWR();
            wr.setOpcode(opcode);
            wr.setSg_list(sges);
            wr.setNum_sge(1);
            wrs.add(wr);
        }
        return qp.postSend(wrs, null);
    }

    private long wrId(final int id)
    {
        return linkBits | (id & 0xFFFF_FFFFL);
    }

    @Override
    public void pollCompletions()
    {
        verbs.poll();
    }

    @Override
    public void close()
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
    }

    @Override
    public void release()
    {
        free(writeChains);
        for (final SVCPostRecv batch : receives)
        {
            batch.free();
        }
        receives.clear();
        free(sendChains);
        if (read != null)
        {
            read.free();
            read = null;
        }
        verbs.remove(linkId);
    }

    private static void free(final SVCPostSend[] chains)
    {
        for (int i = 0; i < chains.length; i++)
        {
            if (chains[i] != null)
            {
                chains[i].free();
                chains[i] = null;
            }
        }
    }
}
