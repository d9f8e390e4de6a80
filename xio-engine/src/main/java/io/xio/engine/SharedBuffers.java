package io.xio.engine;

import io.xio.engine.memory.SharedMemory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared-memory buffers an engine handed out ({@link XioEngine#allocateShared}): each a file mapped in place,
 * deleted when the application frees it or when the engine closes. Any thread.
 */
final class SharedBuffers
{
    private final List<ByteBuffer> buffers = new ArrayList<>();

    /** A new buffer of {@code bytes} in a file in {@code directory}. */
    ByteBuffer allocate(final Path directory, final int bytes)
    {
        final ByteBuffer buffer = SharedMemory.allocate(directory, bytes).buffer();
        synchronized (buffers)
        {
            buffers.add(buffer);
        }
        return buffer;
    }

    /** Deletes the file of a buffer this engine handed out; false when it did not (or no longer does). */
    boolean free(final ByteBuffer buffer)
    {
        synchronized (buffers)
        {
            if (!buffers.removeIf(held -> held == buffer))
            {
                return false;
            }
        }
        return SharedMemory.free(buffer) != null;
    }

    /** Deletes the files of every buffer still handed out; when the engine closes. */
    void freeAll()
    {
        synchronized (buffers)
        {
            buffers.forEach(SharedMemory::free);
            buffers.clear();
        }
    }
}
