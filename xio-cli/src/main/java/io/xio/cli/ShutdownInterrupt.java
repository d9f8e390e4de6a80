package io.xio.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Lets Ctrl-C (or any other shutdown of the JVM, such as SIGTERM) end a command cleanly: while the command runs, a
 * shutdown hook interrupts the command's thread and waits a little for it to end, so that a stream is cancelled and the
 * session closed, the server told, before the JVM halts. Without it the server would learn of a stream's end only when
 * the lost session timed out. The JVM's exit status after a signal stands (130 after Ctrl-C).
 */
final class ShutdownInterrupt
{
    /** How long a shutdown waits for the command: enough to tell the server, short for whoever pressed Ctrl-C. */
    private static final long GRACE_MILLIS = 2000;

    private ShutdownInterrupt()
    {
    }

    /** Runs {@code command} on this thread, interrupted should the JVM shut down meanwhile; its exit status. */
    static int run(final IntSupplier command)
    {
        final Thread thread = Thread.currentThread();
        final CountDownLatch ended = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            if (ended.getCount() > 0)
            {
                thread.interrupt();
                try
                {
                    ended.await(GRACE_MILLIS, TimeUnit.MILLISECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt(); // halting anyway
                }
            }
        }, "xio-cli-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try
        {
            return command.getAsInt();
        }
        finally
        {
            ended.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // The hook runs, or ran: it finds the command ended.
            }
        }
    }
}
