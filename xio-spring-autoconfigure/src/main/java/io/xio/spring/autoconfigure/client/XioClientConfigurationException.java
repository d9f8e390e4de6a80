package io.xio.spring.autoconfigure.client;

/** An {@code @XioClient} refers to a client name that has no {@code xio.clients.<name>.uri}. */
public final class XioClientConfigurationException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;
    private final String clientName;
    private final String interfaceName;

    public XioClientConfigurationException(final Class<?> api, final String clientName)
    {
        super(clientName.isEmpty()
            ? "@XioClient on " + api.getName() + " names neither a client nor a uri"
            : "@XioClient(\"" + clientName + "\") on " + api.getName() + " has no settings: xio.clients." +
                clientName + ".uri is not set");
        this.clientName = clientName;
        this.interfaceName = api.getName();
    }

    public String clientName()
    {
        return clientName;
    }

    public String interfaceName()
    {
        return interfaceName;
    }
}
