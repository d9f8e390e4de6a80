package io.xio.spring.autoconfigure.client;

/**
 * An {@code @XioClient} has no address: its annotation gives neither a client name nor a URI, or its name has
 * neither {@code xio.clients.<name>.uri} nor {@code xio.clients.<name>.service-id} (nor an
 * {@link XioClientConnectionDetails} bean that knows it); or it has both. Thrown when the client bean is created,
 * so it fails start-up; the properties it names are in their canonical form ({@code xio.clients.order-service.uri}
 * for {@code @XioClient("orderService")}).
 */
public final class XioClientConfigurationException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;
    private final String clientName;
    private final String interfaceName;
    private final String prefix;
    private final String problem;

    /** The client has no address. */
    public XioClientConfigurationException(final Class<?> api, final String clientName)
    {
        super(clientName.isEmpty()
            ? "@XioClient on " + api.getName() + " names neither a client nor a uri"
            : "@XioClient(\"" + clientName + "\") on " + api.getName() + " has no settings: " +
                XioClientFactoryBean.prefix(clientName) + ".uri is not set (nor " +
                XioClientFactoryBean.prefix(clientName) + ".service-id)");
        this.clientName = clientName;
        this.interfaceName = api.getName();
        this.prefix = clientName.isEmpty() ? null : XioClientFactoryBean.prefix(clientName);
        this.problem = null;
    }

    /** The client's settings contradict each other, as {@code problem} says. */
    public XioClientConfigurationException(final Class<?> api, final String clientName, final String problem)
    {
        super("@XioClient(\"" + clientName + "\") on " + api.getName() + " " + problem);
        this.clientName = clientName;
        this.interfaceName = api.getName();
        this.prefix = XioClientFactoryBean.prefix(clientName);
        this.problem = problem;
    }

    /** What contradicts, for settings that do; null when there are none. */
    public String problem()
    {
        return problem;
    }

    /** The client's name as the annotation gives it; empty when it gives none. */
    public String clientName()
    {
        return clientName;
    }

    public String interfaceName()
    {
        return interfaceName;
    }

    /** The canonical prefix of the client's properties, e.g. {@code xio.clients.order-service}; null without a name. */
    public String propertyPrefix()
    {
        return prefix;
    }
}
