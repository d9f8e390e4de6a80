package io.xio.engine.transport;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.ContextFailurePolicy;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A real OutOfMemoryError on a server's context thread, in a child JVM with a 64 MiB heap: the server never
 * becomes a zombie that holds its port and answers nothing. By default it closes itself and says why; asked to
 * restart the context, it answers a well-behaved client afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ContextOutOfMemoryProcessTest
{
    private static final String[] SMALL_HEAP = {"-Xmx64m", "-XX:+UseSerialGC"};

    private final TestEngines engines = new TestEngines();
    private ServerProcess child;

    @AfterEach
    void close() throws InterruptedException
    {
        try
        {
            engines.close();
        }
        finally
        {
            if (child != null)
            {
                child.kill();
            }
        }
    }

    private XioEngine client()
    {
        // A server that goes away is a lost connection to its clients: they try to reconnect for this long, then
        // fail their calls with a ConnectionException.
        return engines.start(engines.builder("client").contexts(1).reconnectTimeout(Duration.ofSeconds(2)));
    }

    /** Asks the server to hog its heap; the call fails as a lost connection, well before its deadline. */
    private static void hog(final XioEngine client, final String uri)
    {
        final Session session = client.connect(uri + "/hog");
        final XioFuture<Message> reply = session.request(Outbound.of(utf8("eat")),
            CallOptions.timeout(Duration.ofSeconds(60)));
        assertThatThrownBy(() -> reply.get(45, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class).isNotInstanceOf(XioTimeoutException.class);
        session.close();
    }

    @Test
    void byDefaultTheServerClosesItselfAndSaysWhy() throws Exception
    {
        child = ServerProcess.start("tcp://127.0.0.1:0", SMALL_HEAP);
        final XioEngine client = client();
        hog(client, child.uri());
        assertThat(child.exitCode(Duration.ofSeconds(30))).as("exit code; it printed:%n%s", child.output())
            .contains(ServerProcess.ENGINE_CLOSED);
        assertThat(child.output()).contains("CONTEXT FAILED context child-ctx-0 failed: java.lang.OutOfMemoryError")
            .contains("closing the engine").contains("ENGINE CLOSED [child-ctx-0 failed: java.lang.OutOfMemoryError");
        // Nobody holds the port any more: a new client is refused at once instead of waiting for an answer.
        assertThatThrownBy(() -> client.connect(child.uri() + "/echo")).isInstanceOf(ConnectionException.class)
            .isNotInstanceOf(XioTimeoutException.class);
    }

    @Test
    void askedToRestartTheContextTheServerAnswersAgain() throws Exception
    {
        child = ServerProcess.start("tcp://127.0.0.1:0", SMALL_HEAP[0], SMALL_HEAP[1],
            "-Dxio.server.onContextFailure=" + ContextFailurePolicy.RESTART_CONTEXT.name());
        final XioEngine client = client();
        hog(client, child.uri());
        assertThat(child.isAlive()).as("alive; it printed:%n%s", child.output()).isTrue();
        assertThat(child.output()).contains("CONTEXT FAILED context child-ctx-0 failed: java.lang.OutOfMemoryError")
            .contains("restarting it");
        try (Session session = client.connect(child.uri() + "/echo");
             Message reply = session.request(Outbound.of(utf8("still there?"))).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("still there?");
        }
        assertThat(child.output()).doesNotContain("ENGINE CLOSED");
    }
}
