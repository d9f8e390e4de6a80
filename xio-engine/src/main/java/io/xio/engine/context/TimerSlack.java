package io.xio.engine.context;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Shortens the calling thread's timer slack on Linux, the time the kernel may add to a timed sleep so that it can
 * batch wake-ups: 50 µs by default, which made every sub-millisecond doze of {@link AdaptiveIdle} land 80-120 µs
 * after its deadline on a virtual machine, so that the doze had to end that much earlier and spin the difference.
 * A thread may set its own slack without privileges ({@code /proc/<tid>/timerslack_ns}, Linux 4.6 and later); where
 * that file is missing or refused, nothing changes. Each thread for itself; allocates once.
 */
final class TimerSlack
{
    /** What a context thread asks for: enough to keep timers precise, not zero (which means the default). */
    static final long CONTEXT_THREAD_NANOS = 1_000;

    private static final Path THREAD_SELF = Path.of("/proc/thread-self");

    private TimerSlack()
    {
    }

    /** Sets the calling thread's slack to {@code nanos}; whether it took. */
    static boolean shorten(final long nanos)
    {
        final Path file = fileOfCurrentThread();
        if (file == null)
        {
            return false;
        }
        try
        {
            Files.writeString(file, Long.toString(nanos), StandardCharsets.US_ASCII);
            return true;
        }
        catch (final IOException | SecurityException ex)
        {
            return false;
        }
    }

    /** The calling thread's slack in nanoseconds, or -1 where it cannot be read. */
    static long current()
    {
        final Path file = fileOfCurrentThread();
        if (file == null)
        {
            return -1;
        }
        try
        {
            return Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
        }
        catch (final IOException | SecurityException | NumberFormatException ex)
        {
            return -1;
        }
    }

    /** {@code /proc/<tid>/timerslack_ns} of the calling thread (the per-task directory has no such file). */
    private static Path fileOfCurrentThread()
    {
        try
        {
            final Path task = Files.readSymbolicLink(THREAD_SELF); // <pid>/task/<tid>
            final Path file = Path.of("/proc", task.getFileName().toString(), "timerslack_ns");
            return Files.isRegularFile(file) ? file : null;
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return null;
        }
    }
}
