package io.xio.engine.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.xio.engine.Limits;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzz target for the frame flyweight's checks ({@link Frame#checkHeader}, {@link Frame#checkBody}) on arbitrary
 * bytes, the first thing a peer's input meets. The input is taken as the start of a stream; the verdicts are
 * compared with a reading of docs/protocol.md §7 written here from the text (its own little-endian decoding,
 * its own arithmetic, the documented messages), so the checks must never throw, must reject exactly what the
 * document rejects, in its order and with its words, and must leave every frame they accept laid out as §2
 * says. Each input is checked against the default limits and against limits on either side of its own
 * fields, where off-by-one mistakes live; each body both as other links check it and as a shm link does, which
 * admits shared-memory references (§4.1 DATA_SHARED). Inputs: {@code FrameFuzzTestInputs/checks}; docs/fuzzing.md.
 */
class FrameFuzzTest
{
    private final Frame frame = new Frame();

    @FuzzTest
    void checks(final byte[] input)
    {
        if (input.length < Frame.HEADER_LENGTH)
        {
            return; // the assembler never looks at fewer than 32 bytes
        }
        checkAgainst(input, Limits.DEFAULT);
        final ByteBuffer fields = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
        final int frameLength = fields.getInt(0);
        final int headerLength = fields.getInt(24);
        final int segments = fields.getShort(28) & 0xFFFF;
        if (frameLength > 1 && headerLength > 1 && segments > 1)
        {
            checkAgainst(input, tight(frameLength, headerLength, segments));
            checkAgainst(input, tight(frameLength - 1, headerLength - 1, segments - 1));
        }
    }

    private static Limits tight(final int maxMessageBytes, final int maxHeaderBytes, final int maxSegments)
    {
        final java.time.Duration second = java.time.Duration.ofSeconds(1);
        return Limits.builder().maxMessageBytes(maxMessageBytes).maxHeaderBytes(maxHeaderBytes)
            .maxSegments(maxSegments).maxInFlight(1).maxQueuedBytes(1).dedupWindow(1).retainedResponseBytes(0)
            .maxUnsentBytes(1).writeStallTimeout(second).handshakeTimeout(second).incompleteFrameTimeout(second)
            .minReceiveRate(1).maxSessions(1).maxSessionsPerConnection(1).maxSessionsPerPeer(1)
            .maxConnectionsPerPortal(1).maxConnectionsPerPeer(1).maxMetadataBytes(1).maxRetainedBytesPerSession(0)
            .maxRetainedBytes(0).maxSessionsPerPrincipal(1).maxInFlightPerPrincipal(1)
            .maxAuthenticationFailuresPerHost(1).authenticationFailureInterval(second).build();
    }

    private void checkAgainst(final byte[] input, final Limits limits)
    {
        // Once at the start of an exact-size buffer (a read past the input throws), once inside a larger one.
        final String header = frame.wrap(new UnsafeBuffer(input), 0).checkHeader(limits);
        final byte[] padded = new byte[input.length + 13];
        System.arraycopy(input, 0, padded, 5, input.length);
        final String headerAtOffset = frame.wrap(new UnsafeBuffer(padded), 5).checkHeader(limits);
        assertThat(headerAtOffset).as("the same verdict at another offset").isEqualTo(header);
        assertThat(header).as("checkHeader against %s", limits).isEqualTo(specHeaderProblem(input, limits));
        assertThat(frame.toString()).isNotEmpty();
        if (header != null)
        {
            return;
        }
        final int frameLength = frame.frameLength();
        if (frameLength > input.length)
        {
            return; // the body is checked only once the whole frame is in
        }
        // Exactly the frame's bytes: checkBody must not read past the frame it was told about.
        final byte[] whole = new byte[frameLength];
        System.arraycopy(input, 0, whole, 0, frameLength);
        final String body = frame.wrap(new UnsafeBuffer(whole), 0).checkBody();
        assertThat(body).as("checkBody").isEqualTo(specBodyProblem(whole, false));
        if (body == null)
        {
            assertLaidOutAsDocumented(frameLength);
        }
        final String shm = frame.wrap(new UnsafeBuffer(whole), 0).checkBody(true);
        assertThat(shm).as("checkBody(true)").isEqualTo(specBodyProblem(whole, true));
        if (shm == null)
        {
            assertLaidOutAsDocumented(frameLength);
        }
    }

    /** What an accepted frame promises the session layer, which slices it without further checks. */
    private void assertLaidOutAsDocumented(final int frameLength)
    {
        final int end = frame.offset() + frameLength;
        assertThat(frame.headerOffset()).isEqualTo(Frame.HEADER_LENGTH + 4 * frame.segmentCount());
        assertThat(frame.dataOffset()).isBetween(frame.headerOffset(), end);
        long at = frame.dataOffset();
        for (int i = 0; i < frame.segmentCount(); i++)
        {
            assertThat(frame.segmentLength(i)).isNotNegative();
            at += frame.segmentLength(i);
        }
        if ((frame.flags() & FrameFlags.DATA_SHARED) != 0)
        {
            assertThat(frame.dataOffset() + FrameFlags.SHARED_BODY_LENGTH + 8L * frame.segmentCount())
                .as("the reference ends where the frame does").isEqualTo(end);
        }
        else if (!dataWritten(frame.type(), frame.flags()))
        {
            assertThat(at).as("segments end where the frame does").isEqualTo(end);
        }
    }

    private static boolean dataWritten(final int type, final int flags)
    {
        return type == FrameType.RESPONSE && (flags & FrameFlags.DATA_WRITTEN) != 0;
    }

    /**
     * §7, step 1, from the document: the first rule broken, in the document's words, or null. With streams (type 19,
     * STREAM_DATA, whose header area starts with its {@code i64} sequence number), which §7 does not describe yet.
     */
    static String specHeaderProblem(final byte[] bytes, final Limits limits)
    {
        final ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final long frameLength = in.getInt(0);
        final int version = in.get(4) & 0xFF;
        final int type = in.get(5) & 0xFF;
        final long headerLength = in.getInt(24);
        final long segments = in.getShort(28) & 0xFFFF;
        if (version != 2)
        {
            return "unsupported protocol version " + version + " (this side speaks 2)";
        }
        if (type < 1 || type > 19)
        {
            return "unknown frame type " + type;
        }
        if (frameLength < 32)
        {
            return "frame length " + frameLength + " is shorter than the 32-byte header";
        }
        if (frameLength > limits.maxMessageBytes())
        {
            return "frame length " + frameLength + " exceeds the limit of " + limits.maxMessageBytes() + " bytes";
        }
        if (segments > limits.maxSegments())
        {
            return "segment count " + segments + " exceeds the limit of " + limits.maxSegments();
        }
        if (headerLength < 0 || headerLength > limits.maxHeaderBytes())
        {
            return "application header length " + headerLength + " outside 0.." + limits.maxHeaderBytes();
        }
        if (32 + 4 * segments + headerLength > frameLength)
        {
            return "frame length " + frameLength + " too short for " + segments + " segments and a " + headerLength +
                "-byte header";
        }
        if (type == 19 && headerLength < 8)
        {
            return "STREAM_DATA with a " + headerLength + "-byte header, too short for its sequence number";
        }
        return null;
    }

    /**
     * §7, step 2 (and §4.1 for DATA_WRITTEN and DATA_SHARED), from the document; {@code shm}: on a shm link, where
     * REQUEST and RESPONSE may carry a reference instead of their data.
     */
    static String specBodyProblem(final byte[] whole, final boolean shm)
    {
        final ByteBuffer in = ByteBuffer.wrap(whole).order(ByteOrder.LITTLE_ENDIAN);
        final long frameLength = in.getInt(0);
        final int segments = in.getShort(28) & 0xFFFF;
        long sum = 0;
        for (int i = 0; i < segments; i++)
        {
            final int length = in.getInt(32 + 4 * i);
            if (length < 0)
            {
                return "segment " + i + " has negative length " + length;
            }
            sum += length;
        }
        final int type = in.get(5) & 0xFF;
        final int flags = in.getShort(6) & 0xFFFF;
        long data = dataWritten(type, flags) ? 0 : sum;
        if ((flags & 128) != 0)
        {
            // not with bit 4 (DATA_WRITTEN) either: the data cannot be both in the requester's buffer and a reference
            if (!shm || type != FrameType.REQUEST && type != FrameType.RESPONSE && type != FrameType.STREAM_DATA ||
                (flags & 16) != 0)
            {
                return "shared-memory data reference on a " + FrameType.name(type) + " frame where none may be";
            }
            data = 16 + 8L * segments; // i32 region, i32 0, i64 token, i64 per segment
        }
        final long adds = 32 + 4L * segments + in.getInt(24) + data;
        if (adds != frameLength)
        {
            return "segment lengths add up to a " + adds + "-byte frame, but the frame length is " + frameLength;
        }
        return null;
    }
}
