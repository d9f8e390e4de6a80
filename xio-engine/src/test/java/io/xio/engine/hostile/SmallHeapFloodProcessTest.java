package io.xio.engine.hostile;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.transport.ServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The set-up flood that once left an OutOfMemoryError'd zombie, against a server in a child JVM with a 64 MiB
 * heap and default limits: 2 connections of 4,096 SETUPs each. The limits hold it to a few megabytes (1,024
 * sessions a connection, then a few refusals and the connection is closed), so the server stays alive and keeps
 * answering.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SmallHeapFloodProcessTest
{
    private static final int SETUPS = 4_096;

    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void aSetUpFloodLeavesASmallHeapServerAliveAndAnswering() throws Exception
    {
        try (ServerProcess child = ServerProcess.start("tcp://127.0.0.1:0", "-Xmx64m", "-XX:+UseSerialGC"))
        {
            flood(child);
        }
    }

    private void flood(final ServerProcess child) throws Exception
    {
        final int port = XioUri.parse(child.uri()).port();
        int accepted = 0;
        int rejected = 0;
        for (int c = 0; c < 2; c++)
        {
            try (RawPeer flood = new RawPeer("127.0.0.2", port, 0))
            {
                final byte[] one = RawPeer.setup(1, "echo");
                final ByteBuffer all = ByteBuffer.allocate(SETUPS * one.length);
                for (int i = 1; i <= SETUPS; i++)
                {
                    all.put(RawPeer.setup(i, "echo"));
                }
                flood.trySend(all.array());
                RawPeer.Received answer;
                while ((answer = flood.read(Duration.ofSeconds(20))) != null)
                {
                    if (answer.type() == FrameType.SETUP_ACCEPT)
                    {
                        accepted++;
                    }
                    else if (answer.type() == FrameType.SETUP_REJECT)
                    {
                        rejected++;
                    }
                }
            }
        }
        assertThat(accepted).as("the default limit of sessions per connection, twice").isEqualTo(2 * 1024);
        assertThat(rejected).as("refused, until the refusals close the connection").isEqualTo(2 * 16);
        final XioEngine client = engines.start(engines.builder("client").contexts(1));
        try (Session session = client.connect(child.uri() + "/echo");
             Message reply = session.request(Outbound.of(utf8("still there?"))).get(10, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("still there?");
        }
        assertThat(child.isAlive()).as("alive; it printed:%n%s", child.output()).isTrue();
        assertThat(child.output()).doesNotContain("OutOfMemoryError");
    }
}
