package io.xio.engine.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.xio.engine.protocol.Frame;
import io.xio.engine.session.ScriptedServer;
import org.agrona.concurrent.UnsafeBuffer;

import java.time.Duration;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzz target for the server side of a whole connection: a client that has opened a session on service
 * {@code echo} then sends the input, frame by frame, through the session layer ({@code Connection},
 * {@code Lane}, the handshakes, dedup and cancel) of a real engine on the scripted wire
 * ({@link ScriptedServer}). Whatever arrives, nothing may escape the engine's loop (a bad frame closes the
 * connection, nothing else), no input may hang it (Jazzer's per-input timeout), and closing the engine,
 * after the clock has moved past the session's linger, must find every received buffer released (the leak
 * detector). The input is cut where each frame's length field says, when it fits; a session id of 1 stands
 * for the session opened first and 2 for the latest the server accepted, since the server draws real ids at
 * random. Inputs: {@code ServerConnectionFuzzTestInputs/inbound}; docs/fuzzing.md.
 */
class ServerConnectionFuzzTest
{
    static final long FIRST_SESSION = 1;
    static final long LATEST_SESSION = 2;

    @FuzzTest
    void inbound(final byte[] input)
    {
        try (ScriptedServer server = new ScriptedServer())
        {
            final long first = server.openSession(1, "echo");
            assertThat(first).as("the echo session").isNotZero();
            for (int at = 0; at < input.length && !server.connectionClosed(); )
            {
                final int left = input.length - at;
                int length = left;
                if (left >= Frame.HEADER_LENGTH)
                {
                    final int declared = new UnsafeBuffer(input).getInt(at, Frame.ORDER);
                    length = declared >= Frame.HEADER_LENGTH && declared <= left ? declared : left;
                }
                final byte[] piece = Arrays.copyOfRange(input, at, at + length);
                if (length >= Frame.HEADER_LENGTH)
                {
                    final UnsafeBuffer frame = new UnsafeBuffer(piece);
                    final long session = frame.getLong(Frame.SESSION_ID_OFFSET, Frame.ORDER);
                    if (session == FIRST_SESSION || session == LATEST_SESSION)
                    {
                        final long real = session == FIRST_SESSION ? first : server.lastSessionAccepted();
                        frame.putLong(Frame.SESSION_ID_OFFSET, real, Frame.ORDER);
                    }
                }
                server.deliver(piece);
                at += length;
            }
            server.advance(Duration.ofSeconds(3)); // past the 2 s linger of a session whose connection is gone
            assertThat(server.framesSent()).as("frames the server wrote, the set-up's answer first").isPositive();
        }
    }
}
