package io.xio.it.exactlyonce;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What servers with the execution ledger counted ({@code ExactlyOnceRequests}' executed, replayed and turned away),
 * as a {@link LedgerServerMain} prints it when it stops cleanly; summed over processes. A killed process prints
 * nothing: its counts are lost with it. Immutable.
 *
 * @param executed   requests whose work ran and committed
 * @param replayed   requests answered with the answer another attempt of their key had committed
 * @param turnedAway requests turned away unsettled (another attempt of their key still running, a transient failure)
 */
record ServerCounts(long executed, long replayed, long turnedAway)
{
    /** Nothing counted yet. */
    static final ServerCounts NONE = new ServerCounts(0, 0, 0);

    private static final Pattern STOPPED = Pattern.compile(
        " stopped: executed (\\d+), replayed (\\d+), turned away (\\d+)$");

    /** The line a server prints as it stops: its name, then what {@link #parse} reads. */
    static String stoppedLine(final String server, final long executed, final long replayed, final long turnedAway)
    {
        return server + " stopped: executed " + executed + ", replayed " + replayed + ", turned away " + turnedAway;
    }

    /** The counts a server's stop line gives, or null for any other line. */
    static ServerCounts parse(final String line)
    {
        final Matcher matcher = STOPPED.matcher(line);
        return matcher.find() ? new ServerCounts(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)),
            Long.parseLong(matcher.group(3))) : null;
    }

    ServerCounts plus(final ServerCounts other)
    {
        return new ServerCounts(executed + other.executed, replayed + other.replayed, turnedAway + other.turnedAway);
    }
}
