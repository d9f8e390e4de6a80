package io.xio.rdma.verbs;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCRegMr;
import com.ibm.disni.verbs.SVCReqNotify;
import io.xio.engine.memory.RegisteredMemory;
import io.xio.engine.transport.Poller;
import io.xio.engine.transport.TransportContext;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one context owns on one RDMA device: a protection domain, one completion queue shared by all its
 * links and polled by its loop (so no locks), and a completion channel watched by a small thread that only
 * wakes the loop when a completion arrives while it is parked. Context thread only, but for the watcher.
 */
final class ContextVerbs implements Poller
{
    private static final Logger LOG = LoggerFactory.getLogger(ContextVerbs.class);
    static final int CQ_ENTRIES = 4096;
    private static final int POLL_BATCH = 32;
    private static final int WATCH_MILLIS = 50;

    private final TransportContext context;
    private final IbvContext device;
    private final Map<TransportContext, ContextVerbs> registry;
    private final IbvPd pd;
    private final IbvCompChannel channel;
    private final IbvCQ cq;
    private final IbvWC[] completions = new IbvWC[POLL_BATCH];
    private final SVCPollCq pollCall;
    private final SVCReqNotify arm;
    private final Int2ObjectHashMap<VerbsLink> links = new Int2ObjectHashMap<>();
    private final List<VerbsLink> touched = new ArrayList<>();
    private final Long2ObjectHashMap<IbvRegistration> applicationRegions = new Long2ObjectHashMap<>();
    private long regionsGeneration = RegisteredMemory.generation();
    private final Thread watcher;
    private volatile boolean watching = true;
    private int pending;
    private int nextLinkId = 1;
    private int users;
    private boolean polling;
    private boolean destroyed;

    ContextVerbs(final TransportContext context, final IbvContext device,
        final Map<TransportContext, ContextVerbs> registry) throws IOException
    {
        this.context = context;
        this.device = device;
        this.registry = registry;
        this.pd = device.allocPd();
        this.channel = device.createCompChannel();
        this.cq = device.createCQ(channel, CQ_ENTRIES, 0);
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new IbvWC();
        }
        this.pollCall = cq.poll(completions, completions.length);
        this.arm = cq.reqNotification(false);
        this.watcher = new Thread(this::watch, "xio-rdma-cq-" + context.name());
        watcher.setDaemon(true);
        watcher.start();
        context.addPoller(this);
    }

    IbvContext device()
    {
        return device;
    }

    IbvPd pd()
    {
        return pd;
    }

    IbvCQ cq()
    {
        return cq;
    }

    /** Registers {@code [address, address + length)} for local use and for the peer's one-sided access. */
    IbvRegistration register(final long address, final int length) throws IOException
    {
        final int access = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ | IbvMr.IBV_ACCESS_REMOTE_WRITE;
        final SVCRegMr call = pd.regMr(address, length, access).execute();
        final IbvMr mr = call.getMr();
        call.free();
        if (mr == null)
        {
            throw new IOException("ibv_reg_mr of " + length + " bytes failed");
        }
        return new IbvRegistration(mr);
    }

    /**
     * The registration covering {@code [address, address + length)} when it lies in an application buffer
     * passed to {@code XioEngine.registerMemory} (registered here once, kept until this context's verbs go), or
     * null.
     */
    IbvRegistration registered(final long address, final int length) throws IOException
    {
        final long start = RegisteredMemory.regionOf(address, length);
        if (start < 0)
        {
            return null;
        }
        IbvRegistration region = applicationRegions.get(start);
        if (region == null)
        {
            region = register(start, RegisteredMemory.length(start));
            applicationRegions.put(start, region);
        }
        return region;
    }

    /** Deregisters application regions the application unregistered since the last look. */
    private void dropUnregistered()
    {
        regionsGeneration = RegisteredMemory.generation();
        final List<Long> gone = new ArrayList<>();
        applicationRegions.forEach((start, region) ->
        {
            if (!RegisteredMemory.holds(start, region.mr.getLength()))
            {
                gone.add(start);
            }
        });
        for (final Long start : gone)
        {
            deregister(applicationRegions.remove(start.longValue()).mr);
        }
    }

    static void deregister(final IbvMr mr)
    {
        try
        {
            mr.deregMr().execute().free();
        }
        catch (final IOException ex)
        {
            LOG.warn("ibv_dereg_mr failed", ex);
        }
    }

    int add(final VerbsLink link)
    {
        while (nextLinkId == 0 || links.containsKey(nextLinkId))
        {
            nextLinkId++;
        }
        final int id = nextLinkId++;
        links.put(id, link);
        users++;
        return id;
    }

    void remove(final int linkId)
    {
        if (links.remove(linkId) != null)
        {
            users--;
        }
        if (users == 0 && !polling)
        {
            destroy();
        }
    }

    /** One more user that holds the domain without a link yet (a connection being set up). */
    void hold()
    {
        users++;
    }

    void unhold()
    {
        users--;
        if (users == 0 && !polling)
        {
            destroy();
        }
    }

    @Override
    public int poll()
    {
        if (destroyed)
        {
            return 0;
        }
        polling = true;
        int work = 0;
        if (regionsGeneration != RegisteredMemory.generation())
        {
            dropUnregistered();
        }
        try
        {
            int n = pending;
            pending = 0;
            if (n == 0)
            {
                n = pollCall.execute().getPolls();
            }
            while (n > 0)
            {
                for (int i = 0; i < n; i++)
                {
                    final IbvWC wc = completions[i];
                    final VerbsLink link = links.get((int)(wc.getWr_id() >>> 32));
                    if (link != null)
                    {
                        if (!link.touched)
                        {
                            link.touched = true;
                            touched.add(link);
                        }
                        link.onCompletion((int)wc.getWr_id(), wc.getStatus(), wc.getByte_len(),
                            wc.getVendor_err());
                    }
                }
                work += n;
                n = n == completions.length ? pollCall.execute().getPolls() : 0;
            }
            for (int i = 0; i < touched.size(); i++)
            {
                final VerbsLink link = touched.get(i);
                link.touched = false;
                link.afterCompletions();
            }
            touched.clear();
        }
        catch (final IOException ex)
        {
            LOG.error("polling the completion queue of context {} failed", context.name(), ex);
        }
        finally
        {
            polling = false;
        }
        if (users == 0)
        {
            destroy();
        }
        return work;
    }

    /** Arms the completion channel, then looks once more: a completion after the look wakes the watcher. */
    @Override
    public boolean hasWork()
    {
        if (destroyed)
        {
            return false;
        }
        if (pending > 0)
        {
            return true; // polled already and not yet handled: polling again would overwrite them
        }
        try
        {
            arm.execute();
            pending = pollCall.execute().getPolls();
        }
        catch (final IOException ex)
        {
            LOG.error("arming the completion queue of context {} failed", context.name(), ex);
        }
        return pending > 0;
    }

    private void watch()
    {
        while (watching)
        {
            try
            {
                if (channel.getCqEvent(cq, WATCH_MILLIS))
                {
                    cq.ackEvents(1);
                    context.wakeup();
                }
            }
            catch (final IOException ex)
            {
                LOG.warn("waiting for completions of context {} failed", context.name(), ex);
            }
        }
    }

    private void destroy()
    {
        if (destroyed)
        {
            return;
        }
        destroyed = true;
        registry.remove(context, this);
        context.removePoller(this);
        watching = false;
        try
        {
            watcher.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        applicationRegions.values().forEach(region -> deregister(region.mr));
        applicationRegions.clear();
        try
        {
            pollCall.free();
            arm.free();
            cq.destroyCQ();
            channel.destroyCompChannel();
            pd.deallocPd();
        }
        catch (final Exception ex)
        {
            LOG.warn("releasing the verbs resources of context {} failed", context.name(), ex);
        }
    }
}
