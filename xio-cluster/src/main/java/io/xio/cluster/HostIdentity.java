package io.xio.cluster;

/**
 * The identity of the machine (or container) this process runs on: two processes with the same one may use shm
 * between them. The system property {@code xio.host-id} or the environment variable {@code XIO_HOST_ID} when set;
 * else the host name with the kernel's boot id (Linux), so two containers of one machine differ (their host names
 * do) and two processes of one container match. Thread-safe.
 */
public final class HostIdentity
{
    private HostIdentity()
    {
    }

    /** This process's host identity, computed once. */
    public static String local()
    {
        return Holder.LOCAL;
    }

    private static final class Holder
    {
        static final String LOCAL = compute();

        private static String compute()
        {
            final String configured = System.getProperty("xio.host-id", System.getenv("XIO_HOST_ID"));
            if (configured != null && !configured.isBlank())
            {
                return configured.trim();
            }
            String name;
            try
            {
                name = java.net.InetAddress.getLocalHost().getHostName();
            }
            catch (final java.io.IOException ex)
            {
                name = System.getenv().getOrDefault("HOSTNAME", "localhost");
            }
            try
            {
                final java.nio.file.Path bootId = java.nio.file.Path.of("/proc/sys/kernel/random/boot_id");
                return name + "/" + java.nio.file.Files.readString(bootId).trim();
            }
            catch (final java.io.IOException | RuntimeException ex)
            {
                return name;
            }
        }
    }
}
