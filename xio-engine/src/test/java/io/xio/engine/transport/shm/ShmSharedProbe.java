package io.xio.engine.transport.shm;

import org.agrona.DirectBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;

/**
 * A receiving {@link ShmShared} without a link, for tests outside this package (the fuzz targets): feeds it the peer's
 * control records (types 2 and 3) and says what it made of them. One thread.
 */
public final class ShmSharedProbe
{
    private final ShmShared shared;
    private int completed;

    /** Takes region files of {@code directory}'s owner; {@code lent} tokens 1..lent are pending sends. */
    public ShmSharedProbe(final Path directory, final int lent) throws IOException
    {
        final UserPrincipal user = Files.getOwner(directory);
        shared = new ShmShared(null, directory, user, user);
        for (int token = 1; token <= lent; token++)
        {
            shared.pendingForTest(token, written ->
            {
                if (!written)
                {
                    throw new AssertionError("a release completed a send as not written");
                }
                completed++;
            });
        }
    }

    /** A control record of {@code type} from the peer's ring; a ProtocolViolationException is a close. */
    public void control(final int type, final DirectBuffer buffer, final int index, final int length)
    {
        shared.onControl(type, buffer, index, length);
    }

    /** Sends the releases completed. */
    public int completed()
    {
        return completed;
    }

    /** Regions mapped, and their bytes. */
    public int regions()
    {
        return shared.mappedRegions();
    }

    public long mappedBytes()
    {
        return shared.mappedBytes();
    }
}
