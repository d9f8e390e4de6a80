package io.xio.rdma;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The {@code rdma} transport ({@code rdma://<ip>:<port>}): RC queue pairs over rdma_cm and verbs through
 * DiSNI and xio's own {@code libdisni.so}. The verbs side loads on first use; where RDMA cannot work (no
 * device, no native library, a JVM without the needed export) binding and connecting fail at once with
 * {@link RdmaSupport}'s reason. Thread-safe.
 */
public final class RdmaTransport implements Transport
{
    private static final String IMPLEMENTATION = "io.xio.rdma.verbs.VerbsTransport";

    private static Transport verbs; // one per process: a native library binds to one class loader only

    @Override
    public String scheme()
    {
        return "rdma";
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        return verbs("cannot bind " + address).listen(address, context, onAccept);
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        final Transport transport;
        try
        {
            transport = verbs("cannot connect to " + address.endpoint());
        }
        catch (final IOException ex)
        {
            callback.onFailed(new ConnectionException(ex.getMessage(), ex));
            return () -> { };
        }
        return transport.connect(address, context, callback);
    }

    private static synchronized Transport verbs(final String what) throws IOException
    {
        if (verbs == null)
        {
            final String reason = RdmaSupport.unavailableReason();
            if (reason != null)
            {
                throw new IOException(what + ": RDMA is not available: " + reason);
            }
            verbs = load(what);
        }
        return verbs;
    }

    private static Transport load(final String what) throws IOException
    {
        final ClassLoader parent = RdmaTransport.class.getClassLoader();
        final Path library = RdmaSupport.extractLibrary(parent);
        try
        {
            final Class<?> type = Class.forName(IMPLEMENTATION, true, new DisniClassLoader(parent, library));
            return (Transport)type.getConstructor().newInstance();
        }
        catch (final LinkageError ex)
        {
            throw new IOException(what + ": cannot load libdisni.so (" + ex.getMessage() + "); it needs " +
                "libibverbs1, librdmacm1 and ibverbs-providers (rdma-core) installed", ex);
        }
        catch (final ReflectiveOperationException ex)
        {
            final Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw new IOException(what + ": cannot open RDMA verbs: " + cause, cause);
        }
        finally
        {
            if (library != null)
            {
                Files.deleteIfExists(library); // mapped by now (or failed): the file is no longer needed
            }
        }
    }
}
