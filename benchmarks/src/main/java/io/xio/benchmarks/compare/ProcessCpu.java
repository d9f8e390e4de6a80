package io.xio.benchmarks.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time (user + system) of a process from {@code /proc/PID/stat}, in clock ticks; -1 where unreadable. */
final class ProcessCpu
{
    /** USER_HZ: 100 on every Linux architecture the JVM runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessCpu()
    {
    }

    static long ticks(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // the command name may hold spaces: fields are counted after its closing parenthesis
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    static double seconds(final long ticks)
    {
        return ticks / TICKS_PER_SECOND;
    }
}
