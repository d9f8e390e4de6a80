package io.xio.rdma.verbs;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's rdma_cm event channel and the one thread that waits on it, handing each event to the
 * handler registered for its cm id (for a connect request: the listening id's). The channel and thread
 * exist while ids are registered and go away with the last one. Thread-safe.
 */
final class CmEvents implements Runnable
{
    private static final Logger LOG = LoggerFactory.getLogger(CmEvents.class);
    private static final int WAIT_MILLIS = 50;
    static final int CONNECT_REQUEST = RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal();

    /** Called on the event thread: hand the work to the owning context. */
    interface Handler
    {
        void onCmEvent(int type, RdmaCmId id);
    }

    private final Map<RdmaCmId, Handler> handlers = new ConcurrentHashMap<>();
    private RdmaEventChannel channel;
    private Thread thread;
    private int users;

    /** Takes a reference to the channel (creating it and the thread if needed); pair with {@link #release()}. */
    synchronized RdmaEventChannel acquire() throws IOException
    {
        if (channel == null)
        {
            channel = RdmaEventChannel.createEventChannel();
            if (channel == null)
            {
                throw new IOException("rdma_create_event_channel failed");
            }
            thread = new Thread(this, "xio-rdma-cm");
            thread.setDaemon(true);
            thread.start();
        }
        users++;
        return channel;
    }

    /** Drops a reference; the thread closes the channel once nobody uses it. */
    synchronized void release()
    {
        users--;
    }

    void register(final RdmaCmId id, final Handler handler)
    {
        handlers.put(id, handler);
    }

    void unregister(final RdmaCmId id)
    {
        handlers.remove(id);
    }

    @Override
    public void run()
    {
        final RdmaEventChannel events;
        synchronized (this)
        {
            events = channel;
        }
        while (true)
        {
            synchronized (this)
            {
                if (users == 0)
                {
                    destroy(events);
                    channel = null;
                    thread = null;
                    return;
                }
            }
            try
            {
                final RdmaCmEvent event = events.getCmEvent(WAIT_MILLIS);
                if (event == null)
                {
                    continue;
                }
                final int type = event.getEvent();
                final RdmaCmId owner = type == CONNECT_REQUEST ? event.getListenIdPriv() : event.getConnIdPriv();
                final Handler handler = owner == null ? null : handlers.get(owner);
                if (handler != null)
                {
                    handler.onCmEvent(type, event.getConnIdPriv());
                }
                else
                {
                    LOG.debug("rdma_cm event {} for an id nobody owns any more", name(type));
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.warn("rdma_cm event handling failed", ex);
            }
        }
    }

    private static void destroy(final RdmaEventChannel events)
    {
        try
        {
            events.destroyEventChannel();
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot destroy the rdma_cm event channel", ex);
        }
    }

    static String name(final int type)
    {
        final RdmaCmEvent.EventType[] types = RdmaCmEvent.EventType.values();
        return type >= 0 && type < types.length ? types[type].name() : "event " + type;
    }
}
