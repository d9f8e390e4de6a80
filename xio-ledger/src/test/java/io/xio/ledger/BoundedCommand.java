package io.xio.ledger;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command to its end within a time limit, its output (standard and error together) captured for the caller.
 * A command still running at the limit is killed with everything it started: a program run through {@code runuser}
 * or a shell is a child of the process started, and killing that process alone would leave it running.
 */
final class BoundedCommand
{
    /** What a command did: its exit status and output. */
    record Result(int exitStatus, String output)
    {
    }

    private BoundedCommand()
    {
    }

    /**
     * Runs {@code command} with {@code environment}'s entries set (a null value removes one), input from
     * {@code /dev/null}.
     *
     * @throws IOException when it could not start, or still ran after {@code limit} (then it is killed, with its
     *     descendants)
     */
    static Result run(final List<String> command, final Map<String, String> environment, final Duration limit)
        throws IOException, InterruptedException
    {
        final Path output = Files.createTempFile("xio-command-", ".out");
        try
        {
            final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            environment.forEach((name, value) ->
            {
                if (value == null)
                {
                    builder.environment().remove(name);
                }
                else
                {
                    builder.environment().put(name, value);
                }
            });
            final Process process = builder.start();
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS))
            {
                // Children first: once their parent is gone they are reparented, and no longer its descendants.
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                throw new IOException(String.join(" ", command) + " still ran after " + limit + ":\n" +
                    Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(output);
        }
    }
}
