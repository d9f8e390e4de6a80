package io.xio.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Pinning benchmark processes to CPUs with {@code taskset}: server on CPU 0, client on CPU 1. */
public final class Pinning
{
    private Pinning()
    {
    }

    /** Whether there are two CPUs and {@code taskset} to pin to them. */
    public static boolean possible()
    {
        return Runtime.getRuntime().availableProcessors() >= 2 && Files.isExecutable(Path.of("/usr/bin/taskset"));
    }

    /** Pins every thread of {@code pid} to {@code cpu}; false when that is not possible. */
    public static boolean pin(final long pid, final int cpu)
    {
        if (!possible())
        {
            return false;
        }
        try
        {
            return new ProcessBuilder("taskset", "-a", "-cp", String.valueOf(cpu), String.valueOf(pid))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        }
        catch (final IOException | InterruptedException ex)
        {
            return false;
        }
    }
}
