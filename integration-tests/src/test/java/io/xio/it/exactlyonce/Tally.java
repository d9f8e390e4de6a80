package io.xio.it.exactlyonce;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run's figures, counted write by write: what the writers saw against the rows the servers committed to
 * {@value LedgerServerMain#APPLICATION_TABLE}. A write "ran" as many times as it has rows. Immutable once made.
 *
 * @param run                  the run's name
 * @param writes               writes attempted
 * @param succeeded            writes whose caller got an answer
 * @param failed               writes whose caller got a failure
 * @param failedMayHaveRun     of the failed, those whose failure said the write may have run
 * @param failedButRan         of the failed, those with a row all the same
 * @param rows                 rows in the application table
 * @param duplicates           writes with more than one row: executed twice (or more)
 * @param lost                 succeeded writes with no row
 * @param notRunOnce           attempted writes without exactly one row (failed ones included)
 * @param answeredByOther      succeeded writes answered by another server than the one whose row it is
 * @param ranByRetry           writes whose row a later attempt made (its first attempt died, or was turned away)
 * @param strayRows            rows of no write attempted
 * @param ledgerEntries        the execution ledger's entries (-1 where the run had none)
 * @param heldAtKills          writes the killed servers had in the middle of their transaction as SIGKILL came
 * @param heldInPartition      writes the hidden server had in the middle of their transaction as it was hidden
 * @param servers              what the servers with the ledger counted (those that stopped cleanly); null without
 * @param failures             the failures seen, by type and message, with their counts
 */
record Tally(String run, long writes, long succeeded, long failed, long failedMayHaveRun, long failedButRan, long rows,
    long duplicates, long lost, long notRunOnce, long answeredByOther, long ranByRetry, long strayRows,
    long ledgerEntries, int heldAtKills, int heldInPartition, ServerCounts servers, Map<String, Integer> failures)
{
    /** Kinds of failure listed under the table, the most frequent first. */
    private static final int MAX_FAILURE_KINDS = 8;

    /**
     * Counts {@code outcomes} against the database at {@code jdbcUrl}; {@code ledgerTable} and {@code servers} null
     * for no ledger.
     */
    static Tally count(final String run, final List<Writers.Outcome> outcomes, final String jdbcUrl,
        final String ledgerTable, final int heldAtKills, final int heldInPartition, final ServerCounts servers)
        throws SQLException
    {
        final Map<String, Integer> rowsById = new HashMap<>();
        final Map<String, String> serverById = new HashMap<>();
        final Map<String, Integer> attemptById = new HashMap<>();
        long rows = 0;
        long ledgerEntries = -1;
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
            Statement statement = connection.createStatement())
        {
            try (ResultSet result = statement.executeQuery("SELECT write_id, COUNT(*), MIN(server), MAX(attempt) " +
                "FROM " + LedgerServerMain.APPLICATION_TABLE + " GROUP BY write_id"))
            {
                while (result.next())
                {
                    rowsById.put(result.getString(1), result.getInt(2));
                    serverById.put(result.getString(1), result.getString(3));
                    attemptById.put(result.getString(1), result.getInt(4));
                    rows += result.getInt(2);
                }
            }
            if (ledgerTable != null)
            {
                try (ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM " + ledgerTable))
                {
                    result.next();
                    ledgerEntries = result.getLong(1);
                }
            }
        }
        long succeeded = 0;
        long failed = 0;
        long mayHaveRun = 0;
        long failedButRan = 0;
        long duplicates = 0;
        long lost = 0;
        long notRunOnce = 0;
        long answeredByOther = 0;
        long ranByRetry = 0;
        final Map<String, Integer> failures = new LinkedHashMap<>();
        final Map<String, Integer> attempted = new HashMap<>();
        for (final Writers.Outcome outcome : outcomes)
        {
            final int times = rowsById.getOrDefault(outcome.writeId(), 0);
            attempted.put(outcome.writeId(), times);
            duplicates += times > 1 ? 1 : 0;
            notRunOnce += times != 1 ? 1 : 0;
            ranByRetry += times == 1 && attemptById.get(outcome.writeId()) > 1 ? 1 : 0;
            if (outcome.succeeded())
            {
                succeeded++;
                lost += times == 0 ? 1 : 0;
                answeredByOther += times == 1 && !outcome.answeredBy().equals(serverById.get(outcome.writeId())) ?
                    1 : 0;
            }
            else
            {
                failed++;
                mayHaveRun += outcome.mayHaveRun() ? 1 : 0;
                failedButRan += times > 0 ? 1 : 0;
                failures.merge(describe(outcome.failure()), 1, Integer::sum);
            }
        }
        long strayRows = 0;
        for (final Map.Entry<String, Integer> id : rowsById.entrySet())
        {
            strayRows += attempted.containsKey(id.getKey()) ? 0 : id.getValue();
        }
        return new Tally(run, outcomes.size(), succeeded, failed, mayHaveRun, failedButRan, rows, duplicates, lost,
            notRunOnce, answeredByOther, ranByRetry, strayRows, ledgerEntries, heldAtKills, heldInPartition, servers,
            failures);
    }

    /** A failure's kind: its type, whether it may have run, and its message with numbers (ids, ports) as N. */
    private static String describe(final Throwable failure)
    {
        final String mayHaveRun;
        if (failure instanceof io.xio.engine.ConnectionException lost)
        {
            mayHaveRun = " [mayHaveRun=" + lost.mayHaveRun() + "]";
        }
        else if (failure instanceof io.xio.engine.XioTimeoutException late)
        {
            mayHaveRun = " [mayHaveRun=" + late.mayHaveRun() + "]";
        }
        else
        {
            mayHaveRun = "";
        }
        final Throwable cause = failure.getCause();
        final boolean saysItsCause = cause == null || cause.getMessage() != null && failure.getMessage() != null &&
            failure.getMessage().startsWith(cause.getMessage());
        final String text = failure.getMessage() + (saysItsCause ? "" : " (cause " + cause + ")");
        return failure.getClass().getSimpleName() + mayHaveRun + ": " + text.replaceAll("\\d+", "N");
    }

    /** The runs side by side, a row per figure. */
    static String table(final List<Tally> runs)
    {
        final List<String[]> lines = new ArrayList<>();
        lines.add(row("", runs, Tally::run));
        lines.add(row("writes", runs, t -> Long.toString(t.writes)));
        lines.add(row("succeeded", runs, t -> Long.toString(t.succeeded)));
        lines.add(row("failed", runs, t -> Long.toString(t.failed)));
        lines.add(row("  of them may have run", runs, t -> Long.toString(t.failedMayHaveRun)));
        lines.add(row("  of them ran (a row)", runs, t -> Long.toString(t.failedButRan)));
        lines.add(row("rows", runs, t -> Long.toString(t.rows)));
        lines.add(row("duplicates (2+ rows)", runs, t -> Long.toString(t.duplicates)));
        lines.add(row("lost (succeeded, 0 rows)", runs, t -> Long.toString(t.lost)));
        lines.add(row("writes without exactly 1 row", runs, t -> Long.toString(t.notRunOnce)));
        lines.add(row("answered by another server", runs, t -> Long.toString(t.answeredByOther)));
        lines.add(row("run by a retry (attempt 2+)", runs, t -> Long.toString(t.ranByRetry)));
        lines.add(row("rows of no write", runs, t -> Long.toString(t.strayRows)));
        lines.add(row("ledger entries", runs, t -> t.ledgerEntries < 0 ? "-" : Long.toString(t.ledgerEntries)));
        lines.add(row("held mid-write at the kills", runs, t -> Integer.toString(t.heldAtKills)));
        lines.add(row("held mid-write in the partition", runs, t -> Integer.toString(t.heldInPartition)));
        lines.add(row("servers: executed", runs, t -> t.servers == null ? "-" : Long.toString(t.servers.executed())));
        lines.add(row("servers: replayed", runs, t -> t.servers == null ? "-" : Long.toString(t.servers.replayed())));
        lines.add(row("servers: turned away", runs, t -> t.servers == null ? "-" :
            Long.toString(t.servers.turnedAway())));
        final int[] widths = new int[runs.size() + 1];
        for (final String[] line : lines)
        {
            for (int i = 0; i < line.length; i++)
            {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        final StringBuilder text = new StringBuilder();
        for (final String[] line : lines)
        {
            text.append(String.format("%-" + widths[0] + "s", line[0]));
            for (int i = 1; i < line.length; i++)
            {
                text.append(" | ").append(String.format("%" + widths[i] + "s", line[i]));
            }
            text.append('\n');
        }
        if (runs.stream().anyMatch(run -> run.servers != null))
        {
            text.append("(servers: as counted by the processes that stopped cleanly; a killed one's died with it)\n");
        }
        for (final Tally run : runs)
        {
            run.failures.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(MAX_FAILURE_KINDS).forEach(failure -> text.append(run.run).append(": ")
                    .append(failure.getValue()).append(" x ").append(failure.getKey()).append('\n'));
            if (run.failures.size() > MAX_FAILURE_KINDS)
            {
                text.append(run.run).append(": and ").append(run.failures.size() - MAX_FAILURE_KINDS)
                    .append(" more kinds of failure\n");
            }
        }
        return text.toString();
    }

    private static String[] row(final String label, final List<Tally> runs,
        final java.util.function.Function<Tally, String> figure)
    {
        final String[] line = new String[runs.size() + 1];
        line[0] = label;
        for (int i = 0; i < runs.size(); i++)
        {
            line[i + 1] = figure.apply(runs.get(i));
        }
        return line;
    }
}
