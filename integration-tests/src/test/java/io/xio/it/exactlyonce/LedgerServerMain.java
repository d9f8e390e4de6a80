package io.xio.it.exactlyonce;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.InboundRequest;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.engine.XioEngine;
import io.xio.ledger.DataSourceTransactions;
import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExactlyOnceRequests;
import io.xio.ledger.JdbcExecutionLedger;
import io.xio.ledger.Transactions;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One server of {@link ExactlyOnceClusterIT}, run as a process of its own: an engine with a tcp portal on a free port
 * of 127.0.0.1 (a restart gets a fresh one), serving {@value #SERVICE}, whose every write inserts one row into
 * {@value #APPLICATION_TABLE} of the shared PostgreSQL database (its id, this server, and which attempt of the call
 * ran it) and answers with this server's name. Its database connections carry its name as their application name. In
 * {@code ledger} mode each write runs through the execution ledger ({@link ExactlyOnceRequests}), in the same
 * transaction as its row; in {@code plain} mode it runs in a transaction of its own without it, as a service does
 * without the feature. After its row the work passes the test's {@link WriteGate}, where the test can hold it in the
 * middle of its transaction, and lingers a few milliseconds. Its keepalive is the client's
 * ({@link LedgerCluster#KEEPALIVE_INTERVAL}), so that the client never takes a quiet healthy connection for a silent
 * one.
 *
 * <p>Arguments: {@code name jdbcUrl ledger|plain}. Prints {@value #READY}, its name and its address once its portal
 * listens; exits cleanly when its standard input closes or on SIGTERM, printing what its handler counted
 * ({@link ServerCounts#stoppedLine}).
 */
public final class LedgerServerMain
{
    /** The service the servers register and the client calls. */
    static final String SERVICE = "transfers";
    /** One row per executed write; no unique key on the write id, so that a write run twice shows as two rows. */
    static final String APPLICATION_TABLE = "transfer_log";
    /** The line a server prints once its portal listens, followed by its name and its address. */
    static final String READY = "ready";
    /** The longest a write's work lingers in its transaction: keeps the load from taking every CPU of the machine. */
    private static final int MAX_WORK_MILLIS = 10;
    private static final int WORKERS = 8;

    private LedgerServerMain()
    {
    }

    /** The application table's definition, for the test to create it before any server starts. */
    static String applicationTableDdl()
    {
        return "CREATE TABLE " + APPLICATION_TABLE + " (write_id VARCHAR(64) NOT NULL, server VARCHAR(32) NOT NULL, " +
            "attempt INTEGER NOT NULL, written_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())";
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 3 || !(args[2].equals("ledger") || args[2].equals("plain")))
        {
            System.err.println("usage: LedgerServerMain name jdbcUrl ledger|plain");
            System.exit(2);
        }
        final String name = args[0];
        final boolean ledger = args[2].equals("ledger");

        final HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(args[1]);
        pool.setMaximumPoolSize(WORKERS);
        pool.setPoolName(name);
        // Names its connections in pg_stat_activity, where the test sees this server's writes held at its gate.
        pool.addDataSourceProperty("ApplicationName", name);
        final HikariDataSource dataSource = new HikariDataSource(pool);
        // Bounded: a full queue turns a write away with back-pressure instead of queueing it without end.
        final ExecutorService workers = new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(256));
        final XioEngine engine = XioEngine.builder().name(name).contexts(1)
            .keepalive(LedgerCluster.KEEPALIVE_INTERVAL, LedgerCluster.KEEPALIVE_TIMEOUT)
            .build();
        final Transactions transactions = new DataSourceTransactions(dataSource);
        final ExactlyOnceRequests.Handler work = (request, connection) -> write(name, request, connection);
        final ExactlyOnceRequests exactlyOnce = ledger ? ExactlyOnceRequests.builder(
            ExactlyOnceExecution.of(JdbcExecutionLedger.create(), transactions), workers, work).build() : null;
        final RequestHandler handler = ledger ? exactlyOnce : plain(transactions, workers, work);

        final CountDownLatch stop = new CountDownLatch(1);
        final AtomicBoolean stopped = new AtomicBoolean();
        final Runnable shutdown = () ->
        {
            if (stopped.compareAndSet(false, true))
            {
                engine.close();
                workers.shutdown();
                awaitQuietly(workers);
                dataSource.close();
                System.out.println(exactlyOnce == null ? name + " stopped" : ServerCounts.stoppedLine(name,
                    exactlyOnce.executed(), exactlyOnce.replayed(), exactlyOnce.turnedAway()));
                System.out.flush();
            }
            stop.countDown();
        };
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown, name + "-shutdown"));

        engine.register(SERVICE, handler);
        final int port = engine.bind("tcp://127.0.0.1:0").uri().port();
        System.out.println(READY + " " + name + " on 127.0.0.1:" + port + (ledger ? " with" : " without") +
            " the execution ledger");
        System.out.flush();

        final Thread stdin = new Thread(() ->
        {
            drain(System.in);
            shutdown.run();
        }, name + "-stdin");
        stdin.setDaemon(true);
        stdin.start();
        stop.await();
        System.exit(0);
    }

    /**
     * The work of one write: its row, tagged with this server, then the gate, where the test may hold it; this
     * server's name is the answer.
     */
    private static byte[] write(final String name, final InboundRequest request, final Connection connection)
        throws Exception
    {
        final String writeId = new String(request.message().headerBytes(), StandardCharsets.UTF_8);
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + APPLICATION_TABLE +
            " (write_id, server, attempt) VALUES (?, ?, ?)"))
        {
            insert.setString(1, writeId);
            insert.setString(2, name);
            insert.setInt(3, IdempotencyKeys.previousAttempts(request.metadata()) + 1);
            insert.executeUpdate();
        }
        try (PreparedStatement gate = connection.prepareStatement(WriteGate.PASS))
        {
            gate.setString(1, name);
            gate.execute();
        }
        Thread.sleep(ThreadLocalRandom.current().nextInt(1, MAX_WORK_MILLIS + 1));
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /** The same work without the ledger: each request in a transaction of its own, on the executor. */
    private static RequestHandler plain(final Transactions transactions, final ExecutorService workers,
        final ExactlyOnceRequests.Handler work)
    {
        return request ->
        {
            try
            {
                workers.execute(() -> runPlain(transactions, work, request));
            }
            catch (final RejectedExecutionException ex)
            {
                request.message().close();
                request.refuse();
            }
        };
    }

    private static void runPlain(final Transactions transactions, final ExactlyOnceRequests.Handler work,
        final InboundRequest request)
    {
        final byte[] answer;
        try
        {
            answer = transactions.inTransaction(connection -> work.handle(request, connection));
        }
        catch (final Exception ex)
        {
            request.message().close();
            request.fail(ex);
            return;
        }
        request.message().close();
        request.respond(Outbound.of(answer));
    }

    /** Reads until end of input: the test closes a server's standard input to stop it. */
    private static void drain(final InputStream in)
    {
        final byte[] buffer = new byte[256];
        try
        {
            while (in.read(buffer) >= 0)
            {
                // Nothing is read from the test but its end.
            }
        }
        catch (final IOException ex)
        {
            // The pipe broke: the test is gone, so stop.
        }
    }

    private static void awaitQuietly(final ExecutorService workers)
    {
        try
        {
            workers.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
