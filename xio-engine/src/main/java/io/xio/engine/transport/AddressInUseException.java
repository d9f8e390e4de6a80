package io.xio.engine.transport;

import java.io.IOException;

/**
 * A transport could not listen at an address because another portal holds it: an shm name a live portal is bound
 * at, a local name already bound in this JVM, an rdma port taken. The counterpart of {@link java.net.BindException}
 * (which tcp and tls throw) for the addresses that are not socket ports, so that callers can tell "in use" from
 * "cannot listen there" without reading messages. Thrown by {@link Transport#listen} on the thread that calls it.
 */
public class AddressInUseException extends IOException
{
    private static final long serialVersionUID = 1L;

    public AddressInUseException(final String message)
    {
        super(message);
    }
}
