package io.xio.benchmarks.ledger;

import io.xio.benchmarks.ledger.spring.api.TransferApi;
import io.xio.benchmarks.ledger.spring.client.TransferClient;
import io.xio.benchmarks.ledger.spring.client.TransferClientApplication;
import io.xio.benchmarks.ledger.spring.server.TransferServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Spring pair: the same {@code @Transactional} service method (a {@link Transfers transfer} written with
 * {@code JdbcTemplate}) called through an {@code @XioClient} proxy over tcp on 127.0.0.1, plain and with
 * {@code @XioMethod(exactlyOnce = true)}; what a Spring application pays for exactly-once, RPC included. The server
 * is a Spring Boot context of its own over the benchmark's pool (Boot's transaction manager, xio's ledger in a table
 * of its own, created at start-up), the client another; both run xio's defaults but one context each, as the machine
 * the benchmark was made for has two CPUs. The client makes a key per call, so each exactly-once call is its key's
 * first use: the ledger adds one {@code INSERT}. {@link #close()} stops both contexts, not the pool. Thread-safe.
 */
final class SpringCases implements CaseSet
{
    /** The ledger's table of this set, apart from {@link LedgerCases}'s so that each set's entries can be counted. */
    static final String LEDGER_TABLE = "bench_spring_ledger";

    private static final String[] COMMON = {"xio.contexts=1", "spring.main.banner-mode=off",
        "logging.level.root=warn"};

    private final DataSource dataSource;
    private final ConfigurableApplicationContext server;
    private final ConfigurableApplicationContext client;
    private final LongAdder plainCalls = new LongAdder();
    private final LongAdder exactlyOnceCalls = new LongAdder();
    private final List<CostCase> cases;

    /** Starts the server over {@code dataSource}, which holds the transfer tables, and its client. */
    SpringCases(final DataSource dataSource)
    {
        this.dataSource = dataSource;
        server = new SpringApplicationBuilder(TransferServerApplication.class).web(WebApplicationType.NONE)
            // The pool is the benchmark's (Database closes it): a singleton registered here is not destroyed.
            .initializers(context -> context.getBeanFactory().registerSingleton("dataSource", dataSource))
            .properties(COMMON).properties("xio.portals[0].uri=tcp://127.0.0.1:0",
                "xio.ledger.table-name=" + LEDGER_TABLE, "xio.ledger.initialize-schema=always")
            .run();
        try
        {
            final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
            client = new SpringApplicationBuilder(TransferClientApplication.class).web(WebApplicationType.NONE)
                .properties(COMMON).properties("xio.clients.ledger-transfers.uri=tcp://127.0.0.1:" + port +
                    "/ledger-transfers")
                .run();
        }
        catch (final RuntimeException ex)
        {
            server.close();
            throw ex;
        }
        final TransferApi transfers = client.getBean(TransferClient.class);
        cases = List.of(
            CostCase.of("xio, @Transactional", "-", () ->
            {
                Transfers.checkAnswer(transfers.transfer());
                plainCalls.increment();
            }),
            CostCase.of("xio, exactly-once", "INSERT", () ->
            {
                Transfers.checkAnswer(transfers.transferExactlyOnce());
                exactlyOnceCalls.increment();
            }));
    }

    @Override
    public List<CostCase> cases()
    {
        return cases;
    }

    @Override
    public long transfers()
    {
        return plainCalls.sum() + exactlyOnceCalls.sum();
    }

    /** Every exactly-once call made one entry in this set's ledger, and no plain call made one. */
    @Override
    public void verify() throws SQLException
    {
        final long entries = Transfers.count(dataSource, "SELECT COUNT(*) FROM " + LEDGER_TABLE);
        if (entries != exactlyOnceCalls.sum())
        {
            throw new IllegalStateException("the Spring ledger's rows do not match the calls made: " +
                exactlyOnceCalls.sum() + " exactly-once calls, " + entries + " ledger entries");
        }
    }

    @Override
    public void close()
    {
        try
        {
            client.close();
        }
        finally
        {
            server.close();
        }
    }
}
