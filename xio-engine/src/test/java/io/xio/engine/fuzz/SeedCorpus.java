package io.xio.engine.fuzz;

import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.Credentials;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.PeerFrames;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The committed seeds of the fuzz targets, built from the protocol (docs/protocol.md) so that fuzzing starts
 * from frames the engine really exchanges rather than from noise. {@link SeedCorpusTest} holds the files in
 * {@code src/test/resources/io/xio/engine/fuzz} to this and rewrites them when asked (docs/fuzzing.md).
 */
final class SeedCorpus
{
    static final long SESSION = 0x1234_5678_9ABCL;

    private SeedCorpus()
    {
    }

    /** Seed files by directory (relative to the fuzz package's resources), then by file name. */
    static Map<String, Map<String, byte[]>> all()
    {
        final Map<String, Map<String, byte[]>> all = new LinkedHashMap<>();
        final Map<String, byte[]> checks = frames();
        checks.putAll(sharedFrames());
        all.put("FrameFuzzTestInputs/checks", checks);
        all.put("FrameAssemblerFuzzTestInputs/stream", streams());
        all.put("ShmControlFuzzTestInputs/records", controlRecords());
        all.put("FrameAssemblerFuzzTestInputs/largeFrames", largeStreams());
        all.put("SetupCodecFuzzTestInputs/reader", bodies());
        all.put("ServerConnectionFuzzTestInputs/inbound", conversations());
        return all;
    }

    /** One of each frame type that a v2 stream carries (streams' included), and three the checks must refuse. */
    static Map<String, byte[]> frames()
    {
        final Map<String, byte[]> frames = new LinkedHashMap<>();
        frames.put("valid-setup", frame(FrameType.SETUP, 0, 0, 1, 0, setupBody()));
        frames.put("valid-setup-accept", frame(FrameType.SETUP_ACCEPT, 0, SESSION, 1, 0, acceptBody()));
        frames.put("valid-setup-reject", frame(FrameType.SETUP_REJECT, 0, 0, 2, 0, rejectBody()));
        frames.put("valid-setup-redirect", frame(FrameType.SETUP_REDIRECT, 0, 0, 3, 0, redirectBody()));
        frames.put("valid-attach", frame(FrameType.ATTACH, 0, SESSION, 4, 0, new byte[0]));
        frames.put("valid-goaway", frame(FrameType.GOAWAY, 0, SESSION, 0, 0, goAwayBody()));
        frames.put("valid-request", frame(FrameType.REQUEST, FrameFlags.RECEIPT_REQUESTED, SESSION, 7, 0,
            utf8("get user:42"), utf8("abc"), new byte[100]));
        frames.put("valid-request-context", frame(FrameType.REQUEST, FrameFlags.CONTEXT, SESSION, 8, 0,
            withContext(true, "get user:42"), utf8("abc")));
        frames.put("valid-response-error", frame(FrameType.RESPONSE, FrameFlags.FROM_ACCEPTOR, SESSION, 7,
            Status.APPLICATION_ERROR, utf8("java.lang.IllegalStateException\nboom")));
        frames.put("valid-response-written", writtenResponse(4096, 4096));
        frames.put("valid-receipt", frame(FrameType.RECEIPT, 0, SESSION, 7, 0, new byte[0]));
        frames.put("valid-cancel", frame(FrameType.CANCEL, 0, SESSION, 3, 0,
            new SetupCodec.Writer().i64(9).toBytes()));
        frames.put("valid-cancel-result", frame(FrameType.CANCEL_RESULT, 0, SESSION, 3, 0,
            new SetupCodec.Writer().i64(9).i32(2).toBytes()));
        frames.put("valid-keepalive", frame(FrameType.KEEPALIVE, 0, 0, 0, 0, new byte[0]));
        frames.put("valid-data-descriptor", frame(FrameType.DATA_DESCRIPTOR, 0, SESSION, 8, 0,
            new SetupCodec.Writer().i64(0x7F00_0000_1000L).i32(42).i32(65536).toBytes()));
        frames.put("valid-close", frame(FrameType.CLOSE, 0, SESSION, 0, 0,
            new SetupCodec.Writer().string("closed by the application").toBytes()));
        frames.put("valid-setup-accept-streams", frame(FrameType.SETUP_ACCEPT, 0, SESSION, 1, 0,
            acceptWithFeaturesBody()));
        frames.put("valid-stream-open", frame(FrameType.REQUEST, FrameFlags.STREAM | FrameFlags.CONTEXT, SESSION, 9,
            0, withContext(true, "subscribe prices")));
        frames.put("valid-stream-data", frame(FrameType.STREAM_DATA, 0, SESSION, 9, 0,
            sequenced(1, utf8("tick")), utf8("EUR 1.08")));
        frames.put("valid-stream-data-context", frame(FrameType.STREAM_DATA, FrameFlags.CONTEXT, SESSION, 9, 0,
            sequenced(2, withContext(false, "tick")), utf8("EUR 1.09")));
        frames.put("valid-stream-end", frame(FrameType.STREAM_DATA, FrameFlags.END | FrameFlags.FROM_ACCEPTOR,
            SESSION, 4, Status.CANCELLED, sequenced(3, new byte[0])));
        frames.put("valid-credit", frame(FrameType.CREDIT, 0, SESSION, 9, 0,
            new SetupCodec.Writer().i64(2).i64(1026).i64(1 << 20).toBytes()));
        frames.put("invalid-stream-data-short", frame(FrameType.STREAM_DATA, 0, SESSION, 9, 0, new byte[4]));
        final byte[] version1 = frame(FrameType.KEEPALIVE, 0, 0, 0, 0, new byte[0]);
        version1[Frame.VERSION_OFFSET] = 1;
        frames.put("invalid-version-1", version1);
        final byte[] negative = frame(FrameType.REQUEST, 0, SESSION, 1, 0, new byte[0], new byte[8]);
        new UnsafeBuffer(negative).putInt(Frame.HEADER_LENGTH, -8, Frame.ORDER);
        frames.put("invalid-negative-segment", negative);
        return frames;
    }

    /**
     * A call-context block (docs/protocol.md §2.4) with a deadline of 5 s when {@code deadline}, a text and a
     * binary metadata entry, then {@code header}.
     */
    static byte[] withContext(final boolean deadline, final String header)
    {
        final io.xio.engine.Metadata metadata = new io.xio.engine.Metadata().add("tenant", "acme")
            .add("trace-bin", new byte[] {1, 2, 3});
        final long remaining = deadline ? 5_000_000_000L : io.xio.engine.protocol.CallContext.NO_DEADLINE;
        final int block = io.xio.engine.protocol.CallContext.blockLength(remaining, metadata);
        final byte[] text = utf8(header);
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[block + text.length]);
        io.xio.engine.protocol.CallContext.write(bytes, 0, remaining, metadata);
        bytes.putBytes(block, text);
        return bytes.byteArray();
    }

    /** A STREAM_DATA's application-header area: the {@code i64} sequence number, then {@code rest}. */
    static byte[] sequenced(final long sequence, final byte[] rest)
    {
        return ByteBuffer.allocate(8 + rest.length).order(ByteOrder.LITTLE_ENDIAN).putLong(sequence).put(rest)
            .array();
    }

    /** Programs for {@link FrameAssemblerFuzzTest} (its Javadoc has the commands). */
    static Map<String, byte[]> streams()
    {
        final ByteArrayOutputStream valid = new ByteArrayOutputStream();
        frames().forEach((name, frame) ->
        {
            if (name.startsWith("valid-"))
            {
                valid.writeBytes(frame);
            }
        });
        final byte[] all = valid.toByteArray();
        final Map<String, byte[]> streams = new LinkedHashMap<>();
        streams.put("valid-frames-whole", new Program().bytes(all).toBytes());
        streams.put("valid-frames-tcp-5-byte-reads", new Program().settings(2).chunks(all, 5).toBytes());
        streams.put("valid-frames-shm-held", new Program().settings(1 | 4).chunks(all, 64).settings(8).toBytes());
        // 44-byte frames, which do not divide a 64 KiB slab, held by the application as the slab fills
        final byte[] small = frame(FrameType.REQUEST, 0, SESSION, 5, 0, utf8("twelve bytes"));
        streams.put("frames-across-slabs-held", new Program().settings(4 | 16).bytes(small).repeat(255, 3)
            .settings(8).bytes(small).toBytes());
        // a frame filling most of a slab, then one that straddles its end and moves with its first bytes
        streams.put("frame-straddling-a-slab", new Program().settings(16).bytes(segmentHeader(65_000))
            .zeros(65_000).bytes(segmentHeader(2_000)).zeros(2_000).bytes(small).toBytes());
        // a frame of a slab of its own, held by the application, which closes the link as it arrives
        streams.put("large-frame-held-closed-in-delivery", new Program().settings(1 | 4 | 48)
            .bytes(segmentHeader(70_000)).zeros(69_999).settings(3).bytes(new byte[1]).toBytes());
        streams.put("throw-in-delivery", new Program().settings(3 | 16).bytes(all).toBytes());
        final byte[] bad = frames().get("invalid-version-1");
        streams.put("violation-after-frames", new Program().settings(2).bytes(all).chunks(bad, 3).toBytes());
        streams.put("body-violation-after-frames", new Program().settings(1).bytes(all)
            .bytes(frames().get("invalid-negative-segment")).toBytes());
        return streams;
    }

    /** Programs for {@link FrameAssemblerFuzzTest#largeFrames}. */
    static Map<String, byte[]> largeStreams()
    {
        final byte[] small = frame(FrameType.REQUEST, 0, SESSION, 5, 0, utf8("twelve bytes"));
        final Map<String, byte[]> streams = new LinkedHashMap<>();
        // 5 MiB of data: a slab of its own that grows as the bytes arrive, then a small frame after it
        streams.put("large-frame-grows", new Program().settings(48).bytes(segmentHeader(5 << 20))
            .zeros(5 << 20).bytes(small).toBytes());
        // a header announcing 200 MiB: the assembler must not set that aside for it, nor grow past the bytes in
        streams.put("huge-announcement", new Program().settings(48).bytes(segmentHeader(200 << 20))
            .bytes(new byte[100]).repeat(255, 10).toBytes());
        return streams;
    }

    /**
     * What a client sends once its session on {@code echo} is open, for {@link ServerConnectionFuzzTest}
     * (session 1 is that session, 2 the latest the server accepted).
     */
    static Map<String, byte[]> conversations()
    {
        final long first = ServerConnectionFuzzTest.FIRST_SESSION;
        final long latest = ServerConnectionFuzzTest.LATEST_SESSION;
        final Map<String, byte[]> talks = new LinkedHashMap<>();
        talks.put("requests-retransmit-cancel", concat(
            frame(FrameType.REQUEST, FrameFlags.RECEIPT_REQUESTED, first, 1, 0, utf8("one"), utf8("data")),
            frame(FrameType.REQUEST, FrameFlags.RETRANSMIT, first, 1, 0, utf8("one"), utf8("data")),
            frame(FrameType.REQUEST, FrameFlags.ONE_WAY, first, 2, 0, utf8("two")),
            frame(FrameType.CANCEL, 0, first, 1, 0, new SetupCodec.Writer().i64(3).toBytes()),
            frame(FrameType.KEEPALIVE, 0, 0, 0, 0, new byte[0])));
        talks.put("requests-with-call-context", concat(
            frame(FrameType.REQUEST, FrameFlags.CONTEXT, first, 3, 0, withContext(true, "three"), utf8("data")),
            frame(FrameType.REQUEST, FrameFlags.CONTEXT | FrameFlags.ONE_WAY, first, 4, 0,
                withContext(false, "four"))));
        talks.put("held-then-cancelled", concat(
            frame(FrameType.SETUP, 0, 0, 2, 0, PeerFrames.sizes(new SetupCodec.Writer().u8(0).string("hold")
                .map(Map.of()).i32(1024).i32(2048)).credentials(Credentials.NONE).toBytes()),
            frame(FrameType.REQUEST, 0, latest, 1, 0, utf8("wait")),
            frame(FrameType.DATA_DESCRIPTOR, 0, latest, 2, 0,
                new SetupCodec.Writer().i64(0x1000).i32(42).i32(4096).toBytes()),
            frame(FrameType.REQUEST, 0, latest, 2, 0, utf8("wait too")),
            frame(FrameType.CANCEL, 0, latest, 1, 0, new SetupCodec.Writer().i64(2).toBytes()),
            frame(FrameType.CLOSE, 0, latest, 0, 0, new SetupCodec.Writer().string("bye").toBytes())));
        talks.put("failing-service-and-attach", concat(
            frame(FrameType.SETUP, 0, 0, 3, 0, PeerFrames.sizes(new SetupCodec.Writer().u8(1).string("fail")
                .map(Map.of("token", "s3cr3t")).i32(8).i32(16)).credentials(Credentials.password("ann", "pw"))
                .toBytes()),
            frame(FrameType.REQUEST, 0, latest, 1, 0, utf8("boom")),
            frame(FrameType.ATTACH, 0, 77, 4, 0, new byte[0]),
            frame(FrameType.SETUP, 0, 0, 5, 0, PeerFrames.sizes(new SetupCodec.Writer().u8(0).string("nothing-here")
                .map(Map.of()).i32(1).i32(1)).credentials(Credentials.NONE).toBytes()),
            frame(FrameType.ATTACH, 0, first, 6, 0, new byte[0])));
        // a session of its own on a service that takes streams: a stream opened, credited, fed (a message twice),
        // half-closed and completed; another opened and cancelled, then credited late; then a stream frame on the
        // first session, which announced no streams
        final byte[] streamsSetup = frame(FrameType.SETUP, 0, 0, 7, 0, PeerFrames.sizes(new SetupCodec.Writer().u8(0)
            .string("streams").map(Map.of()).i32(1024).i32(2048)).credentials(Credentials.NONE)
            .u8(SetupCodec.FEATURES).toBytes());
        talks.put("streams", concat(streamsSetup,
            frame(FrameType.REQUEST, FrameFlags.STREAM | FrameFlags.CONTEXT, latest, 1, 0,
                withContext(true, "subscribe")),
            frame(FrameType.CREDIT, 0, latest, 1, 0, new SetupCodec.Writer().i64(0).i64(64).i64(65536).toBytes()),
            frame(FrameType.STREAM_DATA, 0, latest, 1, 0, sequenced(1, utf8("tick")), utf8("data")),
            frame(FrameType.STREAM_DATA, 0, latest, 1, 0, sequenced(1, utf8("tick again"))),
            frame(FrameType.STREAM_DATA, FrameFlags.CONTEXT, latest, 1, 0, sequenced(2, withContext(false, "tock"))),
            frame(FrameType.STREAM_DATA, FrameFlags.END, latest, 1, 0, sequenced(3, new byte[0])),
            frame(FrameType.CREDIT, 0, latest, 1, 0, new SetupCodec.Writer().i64(3).i64(66).i64(65536).toBytes()),
            frame(FrameType.REQUEST, FrameFlags.STREAM, latest, 2, 0, utf8("another")),
            frame(FrameType.CANCEL, 0, latest, 2, 0, new SetupCodec.Writer().i64(2).toBytes()),
            frame(FrameType.CREDIT, 0, latest, 2, 0, new SetupCodec.Writer().i64(1).i64(64).i64(65536).toBytes()),
            frame(FrameType.STREAM_DATA, 0, first, 1, 0, sequenced(1, utf8("no streams here")))));
        // a sequence gap, which closes the connection, with a message held for the service
        talks.put("stream-sequence-gap", concat(streamsSetup,
            frame(FrameType.REQUEST, FrameFlags.STREAM, latest, 1, 0, utf8("open")),
            frame(FrameType.STREAM_DATA, 0, latest, 1, 0, sequenced(1, utf8("one"))),
            frame(FrameType.STREAM_DATA, 0, latest, 1, 0, sequenced(3, utf8("three")))));
        talks.put("answers-a-server-never-gets", concat(
            frame(FrameType.RESPONSE, FrameFlags.FROM_ACCEPTOR, first, 1, Status.OK, utf8("?")),
            frame(FrameType.SETUP_ACCEPT, 0, first, 1, 0, acceptBody()),
            frame(FrameType.GOAWAY, 0, first, 0, 0, goAwayBody())));
        return talks;
    }

    private static byte[] concat(final byte[]... frames)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] frame : frames)
        {
            out.writeBytes(frame);
        }
        return out.toByteArray();
    }

    /** Control bodies of docs/protocol.md §3 for the reader. */
    static Map<String, byte[]> bodies()
    {
        final Map<String, byte[]> bodies = new LinkedHashMap<>();
        bodies.put("setup", setupBody());
        bodies.put("setup-accept", acceptBody());
        bodies.put("reason", reasonBody());
        bodies.put("setup-reject", rejectBody());
        bodies.put("redirect", redirectBody());
        bodies.put("setup-accept-connection-portals", acceptWithPortalsBody());
        bodies.put("setup-accept-features", acceptWithFeaturesBody());
        bodies.put("goaway", goAwayBody());
        bodies.put("cancel-result", new SetupCodec.Writer().i64(9).i32(2).toBytes());
        bodies.put("data-descriptor", new SetupCodec.Writer().i64(0x7F00_0000_1000L).i32(42).i32(65536).toBytes());
        return bodies;
    }

    private static byte[] setupBody()
    {
        return PeerFrames.sizes(new SetupCodec.Writer().u8(0).string("kv").map(Map.of("token", "s3cr3t"))
            .i32(1024).i32(2048)).credentials(Credentials.bearer("t0k3n")).u8(SetupCodec.FEATURES).toBytes();
    }

    private static byte[] acceptBody()
    {
        return PeerFrames.sizes(new SetupCodec.Writer().map(Map.of("node", "a")).i32(1024).i32(2048)
            .bytes(new byte[16])).toBytes();
    }

    private static byte[] reasonBody()
    {
        return new SetupCodec.Writer().string("no service 'kv' at tcp://127.0.0.1:7070; it has [blobs]").toBytes();
    }

    /** A SETUP_REJECT: the reason, then its code (1: authentication failed). */
    private static byte[] rejectBody()
    {
        return new SetupCodec.Writer().string("authentication failed").u8(SetupCodec.REJECT_AUTHENTICATION).toBytes();
    }

    /** A SETUP_ACCEPT that spreads the further connections over two portals. */
    private static byte[] acceptWithPortalsBody()
    {
        return PeerFrames.sizes(new SetupCodec.Writer().map(Map.of("node", "a")).i32(1024).i32(2048)
            .bytes(new byte[16])).strings(List.of("tcp://127.0.0.1:7071", "tcp://127.0.0.1:7072")).toBytes();
    }

    /** A SETUP_ACCEPT of a server with streams: no connection portals, then its features. */
    private static byte[] acceptWithFeaturesBody()
    {
        return PeerFrames.sizes(new SetupCodec.Writer().map(Map.of("node", "a")).i32(1024).i32(2048)
            .bytes(new byte[16])).strings(List.of()).u8(SetupCodec.SERVER_FEATURES).toBytes();
    }

    /** A GOAWAY that redirects to one portal. */
    private static byte[] goAwayBody()
    {
        return new SetupCodec.Writer().strings(List.of("tcp://127.0.0.1:7073")).string("the server is draining")
            .toBytes();
    }

    private static byte[] redirectBody()
    {
        return new SetupCodec.Writer().strings(List.of("tcp://127.0.0.1:7071", "tcp://127.0.0.1:7072")).toBytes();
    }

    /** The fixed header and table of a REQUEST with one segment of {@code length} bytes, none of them. */
    private static byte[] segmentHeader(final int length)
    {
        final byte[] header = new byte[Frame.HEADER_LENGTH + Frame.SEGMENT_ENTRY_LENGTH];
        final UnsafeBuffer buffer = new UnsafeBuffer(header);
        Frame.writeHeader(buffer, 0, header.length + length, FrameType.REQUEST, 0, SESSION, 11, 0, 1, 0);
        buffer.putInt(Frame.HEADER_LENGTH, length, Frame.ORDER);
        return header;
    }

    static byte[] frame(final int type, final int flags, final long sessionId, final long requestId, final int status,
        final byte[] header, final byte[]... segments)
    {
        return PeerFrames.frame(type, flags, sessionId, requestId, status, header, segments);
    }

    /**
     * Frames with shared-memory references (DATA_SHARED), for {@code checkBody(true)}: good ones (no "valid-" prefix,
     * as other links refuse them) and one on a frame type that may carry none.
     */
    static Map<String, byte[]> sharedFrames()
    {
        final Map<String, byte[]> frames = new LinkedHashMap<>();
        frames.put("shared-request", shared(FrameType.REQUEST, 7, utf8("h"), 65536));
        frames.put("shared-response-two-segments", shared(FrameType.RESPONSE, 7, new byte[0], 4096, 100));
        frames.put("invalid-shared-cancel", shared(FrameType.CANCEL, 3, new byte[0], 8));
        return frames;
    }

    /** {@link ShmControlFuzzTest}'s record lists: u8 type, u16 length, bytes. */
    static Map<String, byte[]> controlRecords()
    {
        final Map<String, byte[]> seeds = new LinkedHashMap<>();
        final byte[] announce = region(1, ShmControlFuzzTest.REGION_BYTES, "@");
        seeds.put("announce-and-release", records(2, announce, 3, tokens(1, 2, 3)));
        seeds.put("announce-twice", records(2, announce, 2, announce));
        seeds.put("release-twice", records(3, tokens(5), 3, tokens(5)));
        seeds.put("release-never-sent", records(3, tokens(ShmControlFuzzTest.LENT + 1)));
        seeds.put("region-of-another-size", records(2, region(2, 8192, "@")));
        seeds.put("region-no-such-file", records(2, region(3, 4096, "xio-shared-1-1-0123456789abcdef.buf")));
        seeds.put("region-outside", records(2, region(4, 4096, "../../etc/passwd")));
        seeds.put("unknown-type", records(1, tokens(1)));
        return seeds;
    }

    private static byte[] region(final int id, final int size, final String name)
    {
        final byte[] bytes = utf8(name);
        return ByteBuffer.allocate(8 + bytes.length).order(ByteOrder.LITTLE_ENDIAN).putInt(id).putInt(size).put(bytes)
            .array();
    }

    private static byte[] tokens(final long... tokens)
    {
        final ByteBuffer out = ByteBuffer.allocate(8 * tokens.length).order(ByteOrder.LITTLE_ENDIAN);
        for (final long token : tokens)
        {
            out.putLong(token);
        }
        return out.array();
    }

    /** Pairs of type and body. */
    private static byte[] records(final Object... typesAndBodies)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < typesAndBodies.length; i += 2)
        {
            final byte[] body = (byte[])typesAndBodies[i + 1];
            out.write((Integer)typesAndBodies[i]);
            out.write(body.length & 0xFF);
            out.write(body.length >>> 8);
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    /** A frame whose data area is a reference (§4.1): i32 region 1, i32 0, i64 token, an i64 offset per segment. */
    private static byte[] shared(final int type, final long requestId, final byte[] header, final int... lengths)
    {
        final int table = Frame.HEADER_LENGTH + lengths.length * Frame.SEGMENT_ENTRY_LENGTH;
        final int length = table + header.length + FrameFlags.SHARED_BODY_LENGTH + 8 * lengths.length;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        Frame.writeHeader(buffer, 0, length, type, FrameFlags.DATA_SHARED, SESSION, requestId, header.length,
            lengths.length, Status.OK);
        int at = Frame.HEADER_LENGTH;
        for (final int segment : lengths)
        {
            buffer.putInt(at, segment, Frame.ORDER);
            at += Frame.SEGMENT_ENTRY_LENGTH;
        }
        buffer.putBytes(at, header);
        at += header.length;
        buffer.putInt(at, 1, Frame.ORDER);
        buffer.putLong(at + 8, requestId, Frame.ORDER);
        at += FrameFlags.SHARED_BODY_LENGTH;
        for (int i = 0; i < lengths.length; i++)
        {
            buffer.putLong(at + 8 * i, 4096L * i, Frame.ORDER);
        }
        return buffer.byteArray();
    }

    private static byte[] writtenResponse(final int... lengths)
    {
        final int length = Frame.HEADER_LENGTH + lengths.length * Frame.SEGMENT_ENTRY_LENGTH;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        Frame.writeHeader(buffer, 0, length, FrameType.RESPONSE, FrameFlags.DATA_WRITTEN, SESSION, 7, 0,
            lengths.length, Status.OK);
        for (int i = 0; i < lengths.length; i++)
        {
            buffer.putInt(Frame.HEADER_LENGTH + i * Frame.SEGMENT_ENTRY_LENGTH, lengths[i], Frame.ORDER);
        }
        return buffer.byteArray();
    }

    static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@link FrameAssemblerFuzzTest}'s commands. */
    static final class Program
    {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        /** One chunk of the stream (command 1, as many as needed of at most 65535 bytes). */
        Program bytes(final byte[] chunk)
        {
            for (int at = 0; at < chunk.length || at == 0; at += 0xFFFF)
            {
                final int n = Math.min(0xFFFF, chunk.length - at);
                out.write(1);
                out.write(n & 0xFF);
                out.write(n >>> 8);
                out.write(chunk, at, n);
                if (n == 0)
                {
                    break;
                }
            }
            return this;
        }

        /** The bytes in chunks of {@code size} (1..64, command 0). */
        Program chunks(final byte[] bytes, final int size)
        {
            for (int at = 0; at < bytes.length; at += size)
            {
                final int n = Math.min(size, bytes.length - at);
                out.write((n - 1) << 2);
                out.write(bytes, at, n);
            }
            return this;
        }

        /** The last chunk {@code (times + 1) << shift} times more (command 2). */
        Program repeat(final int times, final int shift)
        {
            out.write(shift << 2 | 2);
            out.write(times);
            return this;
        }

        /** {@code n} zero bytes: one, then that chunk repeated (command 2) as often as it takes. */
        Program zeros(final int n)
        {
            chunks(new byte[1], 1);
            int left = n - 1;
            for (int shift = 24; shift >= 0; shift--)
            {
                for (int times = left >>> shift; times > 0; times = left >>> shift)
                {
                    final int now = Math.min(times, 256);
                    repeat(now - 1, shift);
                    left -= now << shift;
                }
            }
            return this;
        }

        /** Command 3 with the given argument bits. */
        Program settings(final int arg)
        {
            out.write(arg << 2 | 3);
            return this;
        }

        byte[] toBytes()
        {
            return out.toByteArray();
        }
    }
}
