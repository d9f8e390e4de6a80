package io.xio.rdma;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Whether this process can use RDMA, and if not, what is missing and what to install: an RDMA device (with
 * the rdma_cm character device), xio's native library {@code libdisni.so} (in the {@code xio-rdma:linux-<arch>} jar or
 * on
 * {@code java.library.path}), and the {@code sun.nio.ch} export DiSNI needs. Thread-safe, stateless.
 */
public final class RdmaSupport
{
    /**
     * Where the {@code xio-rdma:linux-<arch>} jar carries the library, per architecture as {@code uname -m} names it.
     */
    static final String LIBRARY_RESOURCE = "META-INF/native/linux-" + machine() + "/libdisni.so";
    static final String ADD_EXPORTS = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

    private RdmaSupport()
    {
    }

    /** Why RDMA cannot be used here, or null when it can, looking at this machine and JVM. */
    public static String unavailableReason()
    {
        return unavailableReason(Path.of("/sys/class/infiniband"), Path.of("/dev/infiniband/rdma_cm"),
            RdmaSupport.class.getClassLoader(), System.getProperty("java.library.path", ""),
            Object.class.getModule().isExported("sun.nio.ch", RdmaSupport.class.getClassLoader().getUnnamedModule()));
    }

    static String unavailableReason(final Path devices, final Path cmDevice, final ClassLoader resources,
        final String libraryPath, final boolean nioExported)
    {
        final boolean library = resources.getResource(LIBRARY_RESOURCE) != null || onLibraryPath(libraryPath);
        final boolean device = hasEntries(devices) && Files.exists(cmDevice);
        if (!library && !device)
        {
            return "no RDMA device and no native library: " + deviceAdvice(devices, cmDevice) + "; and " +
                libraryAdvice();
        }
        if (!library)
        {
            return libraryAdvice();
        }
        if (!device)
        {
            return deviceAdvice(devices, cmDevice);
        }
        if (!nioExported)
        {
            return "DiSNI reads direct buffer addresses through sun.nio.ch: start the JVM with " + ADD_EXPORTS +
                " (or an Add-Exports: java.base/sun.nio.ch entry in an executable jar's manifest)";
        }
        return null;
    }

    private static String deviceAdvice(final Path devices, final Path cmDevice)
    {
        return "no RDMA device (" + devices + " is empty or missing, or " + cmDevice + " does not exist): use a " +
            "host with an RDMA NIC and its driver, or Soft-RoCE (modprobe rdma_rxe rdma_ucm; " +
            "rdma link add rxe0 type rxe netdev <interface>), with rdma-core and ibverbs-providers installed";
    }

    private static String libraryAdvice()
    {
        return "no native library libdisni.so (no " + LIBRARY_RESOURCE + " on the class path, none on " +
            "java.library.path): add io.xio:xio-rdma with classifier linux-" + machine() + " (built by " +
            "./mvnw -pl xio-rdma -Prdma-native package, which needs gcc, libibverbs-dev and librdmacm-dev), " +
            "or put a libdisni.so on java.library.path";
    }

    private static boolean hasEntries(final Path directory)
    {
        try (Stream<Path> entries = Files.list(directory))
        {
            return entries.findAny().isPresent();
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static boolean onLibraryPath(final String libraryPath)
    {
        for (final String directory : libraryPath.split(File.pathSeparator))
        {
            if (!directory.isEmpty() && Files.isRegularFile(Path.of(directory, "libdisni.so")))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Copies the library out of the jar into a private temporary file, or returns null when the jar has none
     * (then the JVM looks on java.library.path).
     */
    static Path extractLibrary(final ClassLoader resources) throws IOException
    {
        try (InputStream in = resources.getResourceAsStream(LIBRARY_RESOURCE))
        {
            if (in == null)
            {
                return null;
            }
            final Path file = Files.createTempFile("xio-libdisni-", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        }
    }

    private static String machine()
    {
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return switch (arch)
        {
            case "amd64", "x86_64" -> "x86_64";
            case "arm64", "aarch64" -> "aarch64";
            default -> arch;
        };
    }
}
