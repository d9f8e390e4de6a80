package io.xio.engine.fuzz;

import io.xio.engine.Limits;
import io.xio.engine.fuzz.FrameAssemblerFuzzTest.Outcome;
import io.xio.engine.protocol.Frame;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds the committed seeds to {@link SeedCorpus}, so that they stay frames of the current protocol.
 * {@code -Dxio.fuzz.writeSeeds=true} (re)writes them into {@code src/test/resources} first (docs/fuzzing.md).
 */
class SeedCorpusTest
{
    private static final Path RESOURCES = Path.of("src/test/resources/io/xio/engine/fuzz");

    @Test
    void everySeedIsCommittedAsTheProtocolBuildsIt() throws IOException
    {
        final boolean write = Boolean.getBoolean("xio.fuzz.writeSeeds");
        for (final Map.Entry<String, Map<String, byte[]>> dir : SeedCorpus.all().entrySet())
        {
            for (final Map.Entry<String, byte[]> seed : dir.getValue().entrySet())
            {
                final String name = dir.getKey() + "/" + seed.getKey();
                if (write)
                {
                    Files.createDirectories(RESOURCES.resolve(dir.getKey()));
                    Files.write(RESOURCES.resolve(name), seed.getValue());
                }
                else
                {
                    assertThat(committed(name)).as("seed %s (-Dxio.fuzz.writeSeeds=true rewrites it)", name)
                        .isEqualTo(seed.getValue());
                }
            }
        }
    }

    @Test
    void validFrameSeedsPassTheChecksAndInvalidOnesDoNot()
    {
        final Frame frame = new Frame();
        SeedCorpus.frames().forEach((name, bytes) ->
        {
            frame.wrap(new UnsafeBuffer(bytes), 0);
            final String header = frame.checkHeader(Limits.DEFAULT);
            final String problem = header != null ? header : frame.checkBody();
            if (name.startsWith("valid-"))
            {
                assertThat(problem).as(name).isNull();
                assertThat(frame.frameLength()).as(name).isEqualTo(bytes.length);
            }
            else
            {
                assertThat(problem).as(name).isNotNull();
            }
        });
    }

    @Test
    void sharedFrameSeedsPassAShmLinksChecksOnlyAndInvalidOnesNone()
    {
        final Frame frame = new Frame();
        SeedCorpus.sharedFrames().forEach((name, bytes) ->
        {
            frame.wrap(new UnsafeBuffer(bytes), 0);
            assertThat(frame.checkHeader(Limits.DEFAULT)).as(name).isNull();
            assertThat(frame.checkBody()).as(name).isNotNull();
            if (name.startsWith("invalid-"))
            {
                assertThat(frame.checkBody(true)).as(name).isNotNull();
            }
            else
            {
                assertThat(frame.checkBody(true)).as(name).isNull();
            }
        });
    }

    @Test
    void streamSeedsReachWhatTheirNamesSay()
    {
        final Map<String, byte[]> streams = SeedCorpus.streams();
        final Map<String, byte[]> frames = SeedCorpus.frames();
        frames.keySet().removeIf(name -> !name.startsWith("valid-"));
        final int valid = frames.size();
        final long bytes = frames.values().stream().mapToLong(frame -> frame.length).sum();
        assertThat(run(streams, "valid-frames-whole")).isEqualTo(new Outcome(valid, bytes, null));
        assertThat(run(streams, "valid-frames-tcp-5-byte-reads")).isEqualTo(new Outcome(valid, bytes, null));
        assertThat(run(streams, "valid-frames-shm-held")).isEqualTo(new Outcome(valid, bytes, null));
        assertThat(run(streams, "frames-across-slabs-held")).isEqualTo(new Outcome(2050, 2050 * 44, null));
        assertThat(run(streams, "frame-straddling-a-slab")).isEqualTo(new Outcome(3, 65_036 + 2_036 + 44, null));
        assertThat(run(streams, "large-frame-held-closed-in-delivery"))
            .isEqualTo(new Outcome(1, 70_036, "closed by the application"));
        assertThat(run(streams, "throw-in-delivery")).isEqualTo(new Outcome(1, 87, "thrown by the application"));
        assertThat(run(streams, "violation-after-frames"))
            .isEqualTo(new Outcome(valid, bytes, "unsupported protocol version 1 (this side speaks 2)"));
        assertThat(run(streams, "body-violation-after-frames"))
            .isEqualTo(new Outcome(valid, bytes, "segment 0 has negative length -8"));
    }

    @Test
    void largeFrameSeedsReachWhatTheirNamesSay()
    {
        final Map<String, byte[]> streams = SeedCorpus.largeStreams();
        final int large = FrameAssemblerFuzzTest.LARGE_STREAM_CAP;
        assertThat(new FrameAssemblerFuzzTest.Run(streams.get("large-frame-grows"), large)
            .play()).isEqualTo(new Outcome(2, (5 << 20) + 36 + 44, null));
        assertThat(new FrameAssemblerFuzzTest.Run(streams.get("huge-announcement"), large)
            .play()).isEqualTo(new Outcome(0, 0, null));
    }

    private static Outcome run(final Map<String, byte[]> streams, final String name)
    {
        return new FrameAssemblerFuzzTest.Run(streams.get(name), FrameAssemblerFuzzTest.STREAM_CAP).play();
    }

    private static byte[] committed(final String name)
    {
        try (InputStream in = SeedCorpusTest.class.getResourceAsStream(name))
        {
            return in == null ? null : in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
