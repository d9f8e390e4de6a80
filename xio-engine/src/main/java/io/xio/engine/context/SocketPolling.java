package io.xio.engine.context;

import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.SocketReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How an event loop finds socket work: its selector, and the sockets it reads directly. A busy loop with few
 * sockets reads them itself every turn and selects only now and then (for accepts, connects and doorbells); with
 * more sockets, or while a link needs the selector every turn, each turn selects. The loop's thread only, except
 * {@link #wakeup}.
 */
final class SocketPolling implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(SocketPolling.class);
    /**
     * Socket readers read directly every turn up to this many; one more and a select finds the ready ones. A read
     * costs about what a non-blocking select does, so two reads a turn cost about what a select and a read did.
     */
    private static final int DIRECT_READERS = 2;
    /** Without links that need the selector every turn, a non-blocking select runs at most this often... */
    private static final long RARE_SELECT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** ...or after this many turns, whatever the clock says (a test's clock may stand still). */
    private static final int RAREST_SELECT_MASK = (1 << 14) - 1;

    private final String name;
    private final Selector selector;
    private final ArrayList<SocketReader> readers = new ArrayList<>();
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private final Runnable beforeHandler;
    private int selectorLinks;
    private int turns;
    private long lastRareSelect;

    /**
     * @param name the loop's name, for logs
     * @param beforeHandler runs before each ready key's handler (the loop refreshes its clock after a wait)
     */
    SocketPolling(final String name, final Runnable beforeHandler)
    {
        this.name = name;
        this.beforeHandler = beforeHandler;
        try
        {
            this.selector = Selector.open();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open a selector for context " + name, ex);
        }
    }

    Selector selector()
    {
        return selector;
    }

    void addReader(final SocketReader reader)
    {
        readers.add(reader);
    }

    void removeReader(final SocketReader reader)
    {
        readers.remove(reader);
    }

    /** A link starts ({@code +1}) or stops ({@code -1}) needing the selector every turn. */
    void selectorLinks(final int delta)
    {
        selectorLinks += delta;
    }

    /**
     * Whether a busy turn reads its sockets itself and selects only now and then: not while a link needs the
     * selector every turn (a socket waiting for room to write, or streaming a large frame in or out).
     */
    private boolean readsDirectly()
    {
        return selectorLinks == 0 && readers.size() <= DIRECT_READERS;
    }

    /** A busy turn's non-blocking select, skipped most turns while the sockets are read directly. */
    int selectNow(final long now)
    {
        if (readsDirectly())
        {
            // Accepts, connects and doorbells can wait a millisecond while we are busy (a select every 64th turn
            // showed in a spinning shm pair's profile and tail latency), however long the turns take.
            if ((++turns & RAREST_SELECT_MASK) != 0 && now - lastRareSelect < RARE_SELECT_NANOS)
            {
                return 0;
            }
            lastRareSelect = now;
        }
        if (selector.keys().isEmpty())
        {
            return 0;
        }
        try
        {
            // The action form hands each ready key straight over: no selected-key set, no iterator.
            return selector.selectNow(onSelected);
        }
        catch (final IOException ex)
        {
            LOG.error("select failed on context {}", name, ex);
            return 0;
        }
    }

    /** Reads the sockets that a busy turn reads directly; returns the work done. */
    int readDirectly()
    {
        if (!readsDirectly())
        {
            return 0;
        }
        int work = 0;
        for (int i = 0; i < readers.size(); i++)
        {
            work += readers.get(i).readAvailable();
        }
        return work;
    }

    /** Waits up to {@code timeoutNanos} (whole milliseconds, at least one) for a ready key or a {@link #wakeup}. */
    int block(final long timeoutNanos)
    {
        try
        {
            return selector.select(onSelected, Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        }
        catch (final IOException ex)
        {
            LOG.error("select failed on context {}", name, ex);
            return 0;
        }
    }

    /** Ends a {@link #block} in progress, or the next one. Any thread. */
    void wakeup()
    {
        selector.wakeup();
    }

    private void onSelected(final SelectionKey key)
    {
        beforeHandler.run();
        if (key.attachment() instanceof SelectionHandler handler)
        {
            try
            {
                handler.onSelected(key);
            }
            catch (final RuntimeException ex)
            {
                LOG.error("selection handler failed on context {}", name, ex); // an Error fails the loop
            }
        }
    }

    @Override
    public void close()
    {
        try
        {
            selector.close();
        }
        catch (final IOException ex)
        {
            LOG.warn("closing the selector of context {} failed", name, ex);
        }
    }
}
