package io.xio.benchmarks.ledger;

import io.xio.benchmarks.Repetitions;
import io.xio.ledger.LocalPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What exactly-once costs per call: the same transactional work with and without the execution ledger, side by side
 * in one run, on H2 and on PostgreSQL, from 1 and from 4 threads. The work is a transfer ({@link Transfers}: an
 * {@code UPDATE} of one account row and an {@code INSERT} into a log, one transaction, through a HikariCP pool).
 * Two sets of cases, each with its baseline. The ledger's own API ({@link LedgerCases}): plain in a transaction; a
 * control that writes a new key's row by hand with one plain {@code INSERT} (what the row costs, apart from the
 * ledger's code); exactly-once with a new client-made key on its first use (the common case, one {@code INSERT}
 * more); exactly-once as a retry of a key never seen (a claim, the work, an update: two statements more). Spring
 * ({@link SpringCases}): an {@code @Transactional} service method called through an {@code @XioClient} proxy over
 * tcp, plain, and with {@code @XioMethod(exactlyOnce = true)}.
 *
 * <p>Databases: H2 in a file of a temporary directory (the ledger is only worth something in a database that outlives
 * the process; H2 does not sync each commit, so its figures are what the statements cost in CPU); PostgreSQL, a
 * server of its own from Debian's binaries with default settings, {@code fsync} and {@code synchronous_commit} on
 * ({@link LocalPostgres}, durable), so each commit waits for the disk as in production. Both are removed at the end.
 *
 * <p>Per database and thread count: each case warms up, then every repetition runs every case once for the same
 * time, in an order rotated from one repetition to the next. Each call is timed (HdrHistogram); a case's calls/s is
 * all its threads' calls over the window. The table shows medians over repetitions, [min-max] for calls/s, and
 * each case's ratio to its set's baseline, taken per repetition and summarised the same way. After each database
 * the rows are checked against the calls made ({@link Transfers#verify}, {@link CaseSet#verify}).
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.ledger.LedgerCost
 * -Dbenchmark.args="--reps 5 --seconds 3"}. Options: {@code --reps N} (5), {@code --seconds S} measured per case and
 * repetition (3), {@code --warmup S} per case (3), {@code --threads 1,4}, {@code --databases h2,postgres},
 * {@code --sets ledger,spring}, {@code --smoke} (one repetition of 0.3 s after 0.2 s of warm-up: proves the harness
 * works, figures mean nothing). Without PostgreSQL's binaries its rows are skipped, saying why, unless
 * {@value LocalPostgres#REQUIRED} is {@code true} (CI), which fails the run instead.
 */
public final class LedgerCost
{
    private LedgerCost()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        run(args, System.out);
    }

    /** Runs the benchmark with the command line's {@code args}, printing progress and tables to {@code out}. */
    static void run(final String[] args, final PrintStream out) throws Exception
    {
        final Options options = Options.parse(args);
        final int maxThreads = Arrays.stream(options.threads).max().orElseThrow();
        out.printf(Locale.ROOT, "exactly-once cost per call, %s: %s, %d CPUs, Java %s; %d repetitions of %.1f s " +
            "per case after %.1f s of warm-up; a pool of %d connections; load average %s%n", LocalDate.now(),
            cpuModel(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), options.reps,
            options.seconds, options.warmup, maxThreads, loadAverage());
        for (final String name : options.databases)
        {
            final String lack = name.equals("postgres") ? LocalPostgres.skipReason() : null;
            if (lack != null)
            {
                out.println("PostgreSQL skipped: " + lack);
                continue;
            }
            try (Database database = name.equals("h2") ? Database.h2File(maxThreads) : Database.postgres(maxThreads);
                CallWindow window = new CallWindow(maxThreads))
            {
                measure(database, window, options, out);
            }
        }
    }

    /** The case sets {@code names} on one database, after the transfer tables they share. */
    private static List<CaseSet> caseSets(final DataSource dataSource, final List<String> names) throws Exception
    {
        Transfers.create(dataSource);
        final List<CaseSet> sets = new ArrayList<>();
        try
        {
            for (final String name : names)
            {
                sets.add(name.equals("ledger") ? new LedgerCases(dataSource) : new SpringCases(dataSource));
            }
            return sets;
        }
        catch (final Exception ex)
        {
            close(sets, ex);
            throw ex;
        }
    }

    /**
     * Closes every set. What a close throws is added to {@code failure}; without one (null), the first is thrown once
     * all are closed.
     */
    private static void close(final List<CaseSet> sets, final Exception failure) throws Exception
    {
        Exception first = failure;
        for (final CaseSet set : sets)
        {
            try
            {
                set.close();
            }
            catch (final Exception ex)
            {
                if (first == null)
                {
                    first = ex;
                }
                else
                {
                    first.addSuppressed(ex);
                }
            }
        }
        if (failure == null && first != null)
        {
            throw first;
        }
    }

    private static void measure(final Database database, final CallWindow window, final Options options,
        final PrintStream out) throws Exception
    {
        final List<CaseSet> sets = caseSets(database.dataSource(), options.sets);
        Exception failure = null;
        try
        {
            final List<CostCase> cases = new ArrayList<>();
            sets.forEach(set -> cases.addAll(set.cases()));
            // The table comes after the progress lines, on the same stream: Maven pumps stdout and stderr apart.
            final List<String> rows = new ArrayList<>();
            for (final int threads : options.threads)
            {
                final double[][][] figures = new double[cases.size()][options.reps][];
                for (final CostCase costCase : cases)
                {
                    window.run(costCase, threads, nanos(options.warmup));
                }
                for (int rep = 0; rep < options.reps; rep++)
                {
                    for (int i = 0; i < cases.size(); i++)
                    {
                        final int c = (i + rep) % cases.size();
                        figures[c][rep] = window.run(cases.get(c), threads, nanos(options.seconds));
                    }
                    out.printf(Locale.ROOT, "  %s, %d threads, rep %d: %s; load %s%n", database.name(), threads,
                        rep + 1, perRep(cases, figures, rep), loadAverage());
                }
                int first = 0;
                for (final CaseSet set : sets)
                {
                    for (int i = 0; i < set.cases().size(); i++)
                    {
                        rows.add(row(threads, cases.get(first + i), figures[first + i],
                            i == 0 ? null : figures[first]));
                    }
                    first += set.cases().size();
                }
            }
            out.printf(Locale.ROOT, "%n%s %s%s%n", database.name(), database.version(), database.name().equals("H2") ?
                ", a file in a temporary directory" : ", default settings (fsync, synchronous_commit on)");
            out.printf(Locale.ROOT, "%-7s %-26s %-15s %-26s %9s %9s %-20s %s%n", "threads", "case",
                "ledger adds", "calls/s [min-max]", "p50 us", "p99 us", "calls/s vs plain", "p50 vs plain");
            rows.forEach(out::println);
            Transfers.verify(database.dataSource(), sets.stream().mapToLong(CaseSet::transfers).sum());
            for (final CaseSet set : sets)
            {
                set.verify();
            }
            out.printf("(the database's rows match the calls made; load average after: %s)%n", loadAverage());
        }
        catch (final Exception ex)
        {
            failure = ex;
            throw ex;
        }
        finally
        {
            close(sets, failure);
        }
    }

    /** A row of the table: medians over the repetitions, and ratios to {@code baseline} (none when null). */
    private static String row(final int threads, final CostCase costCase, final double[][] reps,
        final double[][] baseline)
    {
        final double[] rates = Repetitions.sorted(reps, CallWindow.CALLS_PER_SECOND);
        return String.format(Locale.ROOT, "%7d %-26s %-15s %-26s %9.1f %9.1f %-20s %s", threads, costCase.name(),
            costCase.ledgerAdds(), String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", rates[rates.length / 2],
                rates[0], rates[rates.length - 1]), Repetitions.median(reps, CallWindow.P50_MICROS),
            Repetitions.median(reps, CallWindow.P99_MICROS),
            baseline == null ? "-" : ratioCell(reps, baseline, CallWindow.CALLS_PER_SECOND),
            baseline == null ? "-" : ratioCell(reps, baseline, CallWindow.P50_MICROS));
    }

    /** The median [min-max] of the per-repetition ratios of figure {@code index}. */
    private static String ratioCell(final double[][] reps, final double[][] baseline, final int index)
    {
        final double[] ratios = new double[reps.length];
        for (int i = 0; i < reps.length; i++)
        {
            ratios[i] = reps[i][index] / baseline[i][index];
        }
        Arrays.sort(ratios);
        return String.format(Locale.ROOT, "%.2f [%.2f-%.2f]", ratios[ratios.length / 2], ratios[0],
            ratios[ratios.length - 1]);
    }

    private static String perRep(final List<CostCase> cases, final double[][][] figures, final int rep)
    {
        final StringBuilder line = new StringBuilder();
        for (int c = 0; c < cases.size(); c++)
        {
            line.append(c == 0 ? "" : ", ").append(cases.get(c).name()).append(String.format(Locale.ROOT,
                " %,.0f/s p50 %.0f us", figures[c][rep][CallWindow.CALLS_PER_SECOND],
                figures[c][rep][CallWindow.P50_MICROS]));
        }
        return line.toString();
    }

    private static long nanos(final double seconds)
    {
        return (long)(seconds * TimeUnit.SECONDS.toNanos(1));
    }

    private static String cpuModel()
    {
        try
        {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        }
        catch (final IOException ex)
        {
            return "unknown CPU";
        }
    }

    /** The 1, 5 and 15 minute load averages: how busy the shared machine was. */
    private static String loadAverage()
    {
        try
        {
            final String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    /** The command line's settings. */
    private static final class Options
    {
        int reps = 5;
        double seconds = 3;
        double warmup = 3;
        int[] threads = {1, 4};
        List<String> databases = List.of("h2", "postgres");
        List<String> sets = List.of("ledger", "spring");

        static Options parse(final String[] args)
        {
            final Options options = new Options();
            // exec:exec hands -Dbenchmark.args over as one argument
            final String[] words = String.join(" ", args).trim().split("\\s+");
            for (int i = 0; i < words.length; i++)
            {
                switch (words[i])
                {
                    case "" -> { }
                    case "--reps" -> options.reps = positive(Integer.parseInt(value(words, ++i)), "--reps");
                    case "--seconds" -> options.seconds = Double.parseDouble(value(words, ++i));
                    case "--warmup" -> options.warmup = Double.parseDouble(value(words, ++i));
                    case "--threads" -> options.threads = Arrays.stream(value(words, ++i).split(","))
                        .mapToInt(Integer::parseInt).map(n -> positive(n, "--threads")).toArray();
                    case "--databases" -> options.databases = names(value(words, ++i), "--databases", "h2",
                        "postgres");
                    case "--sets" -> options.sets = names(value(words, ++i), "--sets", "ledger", "spring");
                    case "--smoke" ->
                    {
                        options.reps = 1;
                        options.seconds = 0.3;
                        options.warmup = 0.2;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + words[i] + " (--reps N, " +
                        "--seconds S, --warmup S, --threads 1,4, --databases h2,postgres, --sets ledger,spring, " +
                        "--smoke)");
                }
            }
            if (options.seconds <= 0 || options.warmup < 0)
            {
                throw new IllegalArgumentException("--seconds must be positive and --warmup not negative");
            }
            return options;
        }

        private static String value(final String[] words, final int i)
        {
            if (i >= words.length)
            {
                throw new IllegalArgumentException(words[i - 1] + " needs a value");
            }
            return words[i];
        }

        private static int positive(final int value, final String option)
        {
            if (value < 1)
            {
                throw new IllegalArgumentException(option + " takes a positive number, not " + value);
            }
            return value;
        }

        /** The names of {@code list}, each one of {@code known}, once each. */
        private static List<String> names(final String list, final String option, final String... known)
        {
            final List<String> names = Arrays.stream(list.split(",")).distinct().toList();
            for (final String name : names)
            {
                if (!List.of(known).contains(name))
                {
                    throw new IllegalArgumentException(option + " takes " + String.join(" and ", known) + ", not " +
                        name);
                }
            }
            return names;
        }
    }
}
