package io.xio.sample.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.xio.sample.SampleProperties;
import io.xio.sample.api.Payments;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's exactly-once payments: pays {@code sample.payments.orders} orders, each under its order's key
 * ({@link OrderKeys}), then pays every one of them again with the same key, as a client does when it lost a call's
 * answer and cannot tell whether it ran. Each retry must get the first call's receipt without running: the server's
 * table then holds one row per order, its service ran once per order, and xio's {@code xio.server.exactly.once}
 * counter says how many calls were executed and how many replayed. Prints three lines; anything else fails the load.
 * {@link LoadRunner} runs it after its rounds; only in the demo that runs both sides in one JVM. Thread-safe.
 */
@Component
@Profile("!cluster & !server & !client")
public class PaymentsRunner
{
    /** xio's counter of exactly-once calls served, by {@code result}: {@code executed} or {@code replayed}. */
    static final String COUNTER = "xio.server.exactly.once";

    private final SampleProperties properties;
    private final Payments payments;
    private final String uri;
    private final ObjectProvider<MeterRegistry> meters;
    private final AtomicInteger runs = new AtomicInteger();
    private final List<Report> reports = new ArrayList<>();
    private final PrintStream out = System.out;

    /** @param meters the registry the server side's counters are in, where the application has one */
    public PaymentsRunner(final SampleProperties properties, final Environment environment,
        final PaymentsClient payments, final ObjectProvider<MeterRegistry> meters)
    {
        this.properties = properties;
        this.payments = payments;
        this.uri = environment.getProperty("xio.clients.payments.uri", "?");
        this.meters = meters;
    }

    /**
     * What one run counted: orders paid, retries that got the first call's receipt, and what both together added to
     * the table's rows and cents, to the service's runs, and to xio's counts of the calls it executed and replayed
     * (-1 without a meter registry).
     */
    public record Report(String uri, int orders, int replayedReceipts, Payments.Totals totals, long executed,
        long replayed)
    {
    }

    /** The reports of the runs so far. */
    public synchronized List<Report> reports()
    {
        return List.copyOf(reports);
    }

    /**
     * Pays the orders, then again with their keys, and checks the outcome. Blocks until done: not on a context
     * thread.
     *
     * @throws IllegalStateException when a retry got another receipt than its first call, or the counts do not add up
     */
    public Report run()
    {
        final int run = runs.incrementAndGet();
        final int orders = properties.getPayments().getOrders();
        final Payments.Totals before = payments.totals();
        final long executedBefore = count("executed");
        final long replayedBefore = count("replayed");
        final List<Payments.Receipt> receipts = new ArrayList<>(orders);
        for (int i = 1; i <= orders; i++)
        {
            receipts.add(payments.pay(order(run, i), i));
        }
        int replayedReceipts = 0;
        for (int i = 1; i <= orders; i++)
        {
            final Payments.Receipt again = payments.pay(order(run, i), i);
            if (!again.equals(receipts.get(i - 1)))
            {
                throw new IllegalStateException("order " + order(run, i) + " paid again with its key got " + again +
                    ", not the first call's " + receipts.get(i - 1) + ": it ran twice");
            }
            replayedReceipts++;
        }
        final Payments.Totals after = payments.totals();
        final Payments.Totals added = new Payments.Totals(after.rows() - before.rows(),
            after.cents() - before.cents(), after.executions() - before.executions());
        final MeterRegistry registry = meters.getIfAvailable();
        final Report report = new Report(uri, orders, replayedReceipts, added,
            registry == null ? -1 : count("executed") - executedBefore,
            registry == null ? -1 : count("replayed") - replayedBefore);
        synchronized (this)
        {
            reports.add(report);
        }
        print(report);
        final long cents = (long)orders * (orders + 1) / 2;
        if (added.rows() != orders || added.cents() != cents || added.executions() != orders ||
            registry != null && (report.executed() != orders || report.replayed() != orders))
        {
            throw new IllegalStateException("paying " + orders + " orders twice with their keys left " + report +
                ", not " + orders + " rows of " + cents + " cents, written by " + orders + " runs, " + orders +
                " calls executed and " + orders + " replayed");
        }
        return report;
    }

    private void print(final Report report)
    {
        out.printf(Locale.ROOT, "%npayments -> %s: %d orders paid exactly-once, each under its order's key%n",
            report.uri(), report.orders());
        out.printf(Locale.ROOT, "paid again with the same keys, as after a lost answer: %d of %d got the first " +
            "receipt back%n", report.replayedReceipts(), report.orders());
        out.printf(Locale.ROOT, "payments table: %,d rows, %,d cents, from %,d runs of pay; %s%n",
            report.totals().rows(), report.totals().cents(), report.totals().executions(), report.executed() < 0
                ? "no meter registry" : String.format(Locale.ROOT, "%s: %,d executed, %,d replayed", COUNTER,
                report.executed(), report.replayed()));
    }

    /** The calls xio's counter says were answered with {@code result} so far; 0 when there is no registry. */
    private long count(final String result)
    {
        final MeterRegistry registry = meters.getIfAvailable();
        if (registry == null)
        {
            return 0;
        }
        double total = 0;
        for (final Counter counter : registry.find(COUNTER).tag("result", result).counters())
        {
            total += counter.count();
        }
        return (long)total;
    }

    private static String order(final int run, final int i)
    {
        return "order-" + run + "-" + i;
    }
}
