package io.xio.benchmarks.compare.peers;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The key and certificate of the TLS cases: a throwaway self-signed EC P-256 certificate for 127.0.0.1, made by the
 * server half with the JDK's own {@code keytool} (no extra dependency) and handed to the client half as a PKCS12
 * file named in the server's address. Both halves trust only it. Called once per JVM.
 */
final class BenchTls
{
    private static final char[] PASSWORD = "bench-only".toCharArray();

    private BenchTls()
    {
    }

    /** Makes a fresh store in a temporary directory; the caller deletes it with {@link #delete(Path)}. */
    static Path create() throws IOException, InterruptedException
    {
        final Path directory = Files.createTempDirectory("xio-bench-tls");
        final Path store = directory.resolve("bench.p12");
        final Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        final Process process = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "bench",
            "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", "CN=localhost",
            "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
            "-keystore", store.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)))
            .redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            process.destroyForcibly();
            delete(store);
            throw new IOException("keytool failed: " + output);
        }
        return store;
    }

    static void delete(final Path store)
    {
        try
        {
            Files.deleteIfExists(store);
            Files.deleteIfExists(store.getParent());
        }
        catch (final IOException ignore)
        {
            // a temporary file; the OS cleans up what is left
        }
    }

    static KeyManagerFactory keys(final Path store) throws IOException, GeneralSecurityException
    {
        final KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(load(store), PASSWORD);
        return factory;
    }

    /** Trusts the store's certificate (the JDK's trust managers take a key entry's certificate as trusted). */
    static TrustManagerFactory trust(final Path store) throws IOException, GeneralSecurityException
    {
        final TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(load(store));
        return factory;
    }

    /** A context that both presents the certificate and trusts it: good for either half. */
    static SSLContext context(final Path store) throws IOException, GeneralSecurityException
    {
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys(store).getKeyManagers(), trust(store).getTrustManagers(), null);
        return context;
    }

    private static KeyStore load(final Path store) throws IOException, GeneralSecurityException
    {
        final KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store))
        {
            keyStore.load(in, PASSWORD);
        }
        return keyStore;
    }

    /** {@code address} with the store's path appended, for the client half. */
    static String withStore(final String address, final Path store)
    {
        return address + ";" + store;
    }

    /** The server's own address out of {@link #withStore}'s. */
    static String address(final String combined)
    {
        final int at = combined.lastIndexOf(';');
        return at < 0 ? combined : combined.substring(0, at);
    }

    /** The store out of {@link #withStore}'s; null when there is none. */
    static Path store(final String combined)
    {
        final int at = combined.lastIndexOf(';');
        return at < 0 ? null : Path.of(combined.substring(at + 1));
    }
}
