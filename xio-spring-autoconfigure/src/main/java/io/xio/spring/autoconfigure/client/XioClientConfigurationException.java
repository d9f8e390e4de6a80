package io.xio.spring.autoconfigure.client;

/**
 * An {@code @XioClient} refers to a client name that has neither {@code xio.clients.<name>.uri} nor
 * {@code xio.clients.<name>.service-id}, or both.
 */
public final class XioClientConfigurationException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;
    private final String clientName;
    private final String interfaceName;
    private final String problem;

    public XioClientConfigurationException(final Class<?> api, final String clientName)
    {
        super(clientName.isEmpty()
            ? "@XioClient on " + api.getName() + " names neither a client nor a uri"
            : "@XioClient(\"" + clientName + "\") on " + api.getName() + " has no settings: xio.clients." +
                clientName + ".uri is not set (nor xio.clients." + clientName + ".service-id)");
        this.clientName = clientName;
        this.interfaceName = api.getName();
        this.problem = null;
    }

    /** The client's settings contradict each other, as {@code problem} says. */
    public XioClientConfigurationException(final Class<?> api, final String clientName, final String problem)
    {
        super("@XioClient(\"" + clientName + "\") on " + api.getName() + " " + problem);
        this.clientName = clientName;
        this.interfaceName = api.getName();
        this.problem = problem;
    }

    /** What contradicts, for settings that do; null when there are none. */
    public String problem()
    {
        return problem;
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
