package io.xio.sample.server;

import io.xio.sample.SampleProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How often this server executed each write of the cluster load, by write id (client name and sequence): the
 * evidence that a drained or restarted server neither ran a write twice nor lost one. With
 * {@code sample.cluster.journal} set, every executed id is also appended to that file (one write system call, no
 * fsync: the kernel keeps it when the process is killed) and read back at start-up, so the counts cover every run of
 * this server. Bounded: at most {@link #MAX_CLIENTS} client names of at most {@link #MAX_NAME} characters, and
 * sequences below {@link #MAX_SEQUENCE}; other writes are refused. Thread-safe (one lock).
 */
@Component
@Profile("!client")
public final class WriteLedger implements AutoCloseable
{
    /** Distinct client names kept; a write from one more is refused. */
    public static final int MAX_CLIENTS = 16;
    /** Longest client name. */
    public static final int MAX_NAME = 64;
    /** Sequences are below this: 16 Mi writes per client, a few MB of bits at most. */
    public static final long MAX_SEQUENCE = 1L << 24;

    private static final Logger LOG = LoggerFactory.getLogger(WriteLedger.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_NAME + "}");

    private final Map<String, Executions> byClient = new LinkedHashMap<>();
    private final Path journalPath;
    private final FileChannel journal;
    private final ByteBuffer line = ByteBuffer.allocate(MAX_NAME + 24);
    private long executed;
    private long executedMoreThanOnce;

    public WriteLedger(final SampleProperties properties)
    {
        journalPath = properties.getCluster().getJournal();
        if (journalPath == null)
        {
            journal = null;
            return;
        }
        try
        {
            if (Files.exists(journalPath))
            {
                replay(Files.readAllLines(journalPath, StandardCharsets.US_ASCII));
            }
            journal = FileChannel.open(journalPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("sample.cluster.journal " + journalPath + " cannot be used", ex);
        }
    }

    /** What one client's writes did here. */
    public record ClientCounts(long executed, long executedMoreThanOnce)
    {
    }

    /**
     * What the ledger holds: distinct write ids executed, ids executed more than once, and both per client.
     *
     * @param journal the file the ids are appended to, or null
     */
    public record Counts(long executed, long executedMoreThanOnce, Map<String, ClientCounts> clients, String journal)
    {
    }

    /**
     * Counts one execution of the write {@code client}/{@code sequence} (appending it to the journal) and returns how
     * many times it ran here: 1, or 2 for a second run or more.
     *
     * @throws IllegalArgumentException when the name or sequence is out of bounds (nothing is counted)
     */
    public synchronized int execute(final String client, final long sequence)
    {
        final Executions executions = executions(client, sequence);
        final int times = executions.count((int)sequence);
        if (journal != null)
        {
            append(client, sequence);
        }
        return times;
    }

    /** A snapshot of the counts. */
    public synchronized Counts counts()
    {
        final Map<String, ClientCounts> clients = new LinkedHashMap<>();
        byClient.forEach((name, executions) ->
            clients.put(name, new ClientCounts(executions.executed, executions.executedMoreThanOnce)));
        return new Counts(executed, executedMoreThanOnce, clients, journalPath == null ? null : journalPath.toString());
    }

    @Override
    public synchronized void close() throws IOException
    {
        if (journal != null)
        {
            journal.close();
        }
    }

    private Executions executions(final String client, final long sequence)
    {
        if (client == null || !NAME.matcher(client).matches())
        {
            throw new IllegalArgumentException("a write's client name must be 1 to " + MAX_NAME +
                " letters, digits, '.', '_' or '-'");
        }
        if (sequence < 0 || sequence >= MAX_SEQUENCE)
        {
            throw new IllegalArgumentException("a write's sequence must be from 0 to " + (MAX_SEQUENCE - 1));
        }
        Executions executions = byClient.get(client);
        if (executions == null)
        {
            if (byClient.size() == MAX_CLIENTS)
            {
                throw new IllegalArgumentException("this ledger already counts the writes of " + MAX_CLIENTS +
                    " clients");
            }
            executions = new Executions();
            byClient.put(client, executions);
        }
        return executions;
    }

    private void append(final String client, final long sequence)
    {
        line.clear();
        for (int i = 0; i < client.length(); i++)
        {
            line.put((byte)client.charAt(i));
        }
        line.put((byte)' ').put(Long.toString(sequence).getBytes(StandardCharsets.US_ASCII)).put((byte)'\n').flip();
        try
        {
            while (line.hasRemaining())
            {
                journal.write(line);
            }
        }
        catch (final IOException ex)
        {
            // The write ran; its caller is told it did. Losing the record only weakens the evidence, say so loudly.
            LOG.error("could not append write {} {} to {}", client, sequence, journalPath, ex);
        }
    }

    private void replay(final List<String> lines)
    {
        int skipped = 0;
        for (final String entry : lines)
        {
            final int space = entry.indexOf(' ');
            try
            {
                final long sequence = Long.parseLong(entry.substring(space + 1));
                executions(entry.substring(0, Math.max(space, 0)), sequence).count((int)sequence);
            }
            catch (final RuntimeException ex)
            {
                skipped++;
            }
        }
        LOG.info("write ledger: {} ids from {} ({} executed more than once){}", executed, journalPath,
            executedMoreThanOnce, skipped == 0 ? "" : ", " + skipped + " unreadable lines skipped");
    }

    /** One client's writes: executed once or more, and more than once. */
    private final class Executions
    {
        private final BitSet once = new BitSet();
        private final BitSet again = new BitSet();
        private long executed;
        private long executedMoreThanOnce;

        int count(final int sequence)
        {
            if (!once.get(sequence))
            {
                once.set(sequence);
                executed++;
                WriteLedger.this.executed++;
                return 1;
            }
            if (!again.get(sequence))
            {
                again.set(sequence);
                executedMoreThanOnce++;
                WriteLedger.this.executedMoreThanOnce++;
                LOG.warn("write {} executed more than once on this server", sequence);
            }
            return 2;
        }
    }
}
