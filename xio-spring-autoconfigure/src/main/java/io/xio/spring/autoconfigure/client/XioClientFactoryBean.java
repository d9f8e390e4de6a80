package io.xio.spring.autoconfigure.client;

import io.xio.cluster.DnsTarget;
import io.xio.cluster.EndpointResolver;
import io.xio.cluster.LoadBalancer;
import io.xio.cluster.TransportPreference;
import io.xio.engine.Credentials;
import io.xio.engine.TlsOptions;
import io.xio.engine.XioUri;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.autoconfigure.ssl.XioSslBundles;
import io.xio.spring.client.XioClientProxies;
import io.xio.spring.client.XioClientSettings;
import io.xio.spring.client.XioCredentialsProvider;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes the proxy of one {@code @XioClient} interface: the bean definition the registrar writes for each client
 * interface (its target type {@code XioClientFactoryBean<Api>}, so type matching and AOT know the product without
 * creating it), and {@link #create} for an application that builds a client itself. The client's settings are bound
 * from the {@code Environment} with Boot's {@link Binder} when the client is created, so relaxed names work
 * ({@code @XioClient("orderService")} reads {@code xio.clients.order-service.*}, {@code xio.clients.orderService.*}
 * or the {@code XIO_CLIENTS_ORDERSERVICE_*} / {@code XIO_CLIENTS_ORDER_SERVICE_*} environment variables; a
 * bracketed key, {@code xio.clients[orderService].*}, is read from {@link XioProperties#getClients()}) and addresses
 * may arrive only at run time (after AOT processing, from an {@link XioClientConnectionDetails} bean). A named client
 * calls one address ({@code uri}) or every instance of a service ({@code service-id}), never both; an address that
 * is a DNS name ({@code dns:///kv.prod.svc:7000/kv}, see {@link DnsTarget}) calls every address of the name,
 * through the resolver all such clients of the context share ({@link XioDnsEndpoints}, {@code xio.client.dns.*}); a
 * client
 * without an address fails start-up with {@link XioClientConfigurationException}: the proxy is made when the
 * factory is initialized, with the other singletons (its bean definition is never lazy), by
 * {@link XioClientProxies} from the {@link XioClientSettings} resolved here.
 * <p>
 * Created and initialized by the bean factory, on the thread that refreshes the context; {@link #getObject} may be
 * called from any thread.
 */
public final class XioClientFactoryBean<T> implements FactoryBean<T>, BeanFactoryAware, InitializingBean
{
    private final Class<T> api;
    private final String name;
    private final String uri;
    private BeanFactory beanFactory;
    private volatile T object;

    /**
     * The factory of {@code api}'s client.
     *
     * @param name the client's name as {@code @XioClient} gives it (its settings are under {@code xio.clients.<name>})
     * @param uri the address the annotation gives, or empty for the named client's settings
     */
    public XioClientFactoryBean(final Class<T> api, final String name, final String uri)
    {
        this.api = api;
        this.name = name;
        this.uri = uri;
    }

    @Override
    public void setBeanFactory(final BeanFactory beanFactory)
    {
        this.beanFactory = beanFactory;
    }

    /** Makes the proxy, so that a client without settings fails start-up, injected or not. */
    @Override
    public void afterPropertiesSet()
    {
        object = create(api, name, uri, beanFactory);
    }

    @Override
    public T getObject()
    {
        return object;
    }

    /**
     * A client proxy of {@code api} for the named client or the given URI, made of the context's xio beans: for an
     * application that needs a client the registrar does not make, e.g. a {@code @Bean} giving a second client of an
     * interface that already has one ({@code create(KvStore.class, "kv-backup", null, beanFactory)}).
     */
    public static <T> T create(final Class<T> api, final String name, final String uri, final BeanFactory beans)
    {
        checkName(api, name);
        return XioClientProxies.create(api, settings(api, name, uri, beans), beans);
    }

    /**
     * The client's settings from {@code xio.client.*} and, for a named client, its own {@code xio.clients.<name>.*}
     * (which win): resolved here, so that a setting that cannot apply fails naming its property.
     */
    private static XioClientSettings settings(final Class<?> api, final String name, final String uri,
        final BeanFactory beans)
    {
        final XioProperties properties = beans.getBean(XioProperties.class);
        final XioProperties.Client defaults = properties.getClient();
        final String clientName = name == null ? "" : name;
        if (uri != null && !uri.isEmpty())
        {
            final String label = clientName.isEmpty() ? uri : clientName;
            final boolean dns = DnsTarget.isDns(uri);
            return new XioClientSettings(clientName, dns ? null : uri,
                dns ? XioDnsClients.service(uri, LoadBalancer.roundRobin(), beans) : null,
                defaults.getTimeout(), 0, credentials(null, null, defaults.getCredentials()),
                tls(null, null, defaults.getSsl(), XioDnsClients.tlsAddress(uri), beans),
                defaults.getAllowedExceptions(), retry(defaults.getRetry(), null, label));
        }
        if (clientName.isEmpty())
        {
            throw new XioClientConfigurationException(api, "");
        }
        final String prefix = prefix(name);
        final XioProperties.NamedClient settings = namedClient(name, properties, beans);
        final XioClientConnectionDetails.Address address = address(api, name, settings, beans);
        final List<Class<? extends Exception>> allowed = new ArrayList<>(defaults.getAllowedExceptions());
        allowed.addAll(settings.getAllowedExceptions());
        final Duration timeout = settings.getTimeout() != null ? settings.getTimeout() : defaults.getTimeout();
        final int connections = settings.getConnections() != null ? settings.getConnections() : 0;
        final Credentials credentials = credentials(settings.getCredentials(), prefix, defaults.getCredentials());
        final XioClientSettings.Retry retry = retry(defaults.getRetry(), settings.getRetry(), name);
        if (address.serviceId() != null)
        {
            return new XioClientSettings(clientName, null, service(settings, address.serviceId(), name, beans),
                timeout, connections, credentials, serviceTls(settings, address.serviceId(), prefix, beans), allowed,
                retry);
        }
        final boolean dns = DnsTarget.isDns(address.uri());
        return new XioClientSettings(clientName, dns ? null : address.uri(),
            dns ? XioDnsClients.service(address.uri(), balancer(settings), beans) : null, timeout,
            connections, credentials, tls(settings, prefix, defaults.getSsl(), XioDnsClients.tlsAddress(address.uri()),
            beans), allowed, retry);
    }

    /**
     * The service a client that names one calls; fails naming {@code service-id} when there is no
     * {@link EndpointResolver} to find its instances with.
     */
    private static XioClientSettings.Service service(final XioProperties.NamedClient settings,
        final String serviceId, final String name, final BeanFactory beans)
    {
        if (beans.getBeanProvider(EndpointResolver.class).getIfAvailable() == null)
        {
            throw new InvalidConfigurationPropertyValueException(prefix(name) + ".service-id", serviceId, "a client " +
                "that names a service needs Spring Cloud discovery (a DiscoveryClient bean, e.g. from " +
                "spring-cloud-starter-zookeeper-discovery) or an EndpointResolver bean; there is neither");
        }
        return new XioClientSettings.Service(serviceId,
            settings.getResource() != null ? settings.getResource() : name, balancer(settings),
            settings.getTransports() != null ? settings.getTransports() : TransportPreference.DEFAULT);
    }

    /** How a named client that calls several instances spreads its calls. */
    private static LoadBalancer balancer(final XioProperties.NamedClient settings)
    {
        return switch (settings.getLoadBalancing())
        {
            case ROUND_ROBIN -> LoadBalancer.roundRobin();
            case LEAST_IN_FLIGHT -> LoadBalancer.leastInFlight();
            case RENDEZVOUS -> LoadBalancer.rendezvous();
        };
    }

    /**
     * The retry of client {@code name} from {@code xio.client.retry} and, for a named client, its own settings
     * (else null), which win.
     */
    static XioClientSettings.Retry retry(final XioProperties.Retry defaults, final XioProperties.NamedRetry named,
        final String name)
    {
        final boolean own = named != null;
        final int attempts = own && named.getMaxAttempts() != null ? named.getMaxAttempts() : defaults.getMaxAttempts();
        final Duration initial = own && named.getInitialBackoff() != null ? named.getInitialBackoff()
            : defaults.getInitialBackoff();
        final Duration max = own && named.getMaxBackoff() != null ? named.getMaxBackoff()
            : defaults.getMaxBackoff();
        if (initial.compareTo(max) > 0)
        {
            throw new IllegalArgumentException("retry initial-backoff " + initial + " exceeds max-backoff " + max +
                " for client " + name + " (xio.client.retry.*, xio.clients.<name>.retry.*)");
        }
        return new XioClientSettings.Retry(attempts, initial, max);
    }

    /**
     * What a client presents when no {@link XioCredentialsProvider} gives anything: its own {@code credentials.*}
     * (under {@code ownPrefix}) when it sets any, else {@code xio.client.credentials}.
     */
    private static Credentials credentials(final XioProperties.ClientCredentials own, final String ownPrefix,
        final XioProperties.ClientCredentials defaults)
    {
        return own != null && own.hasAny() ? fromProperties(ownPrefix + ".credentials", own)
            : fromProperties("xio.client.credentials", defaults);
    }

    /** The credentials the properties under {@code prefix} set; a combination that cannot apply fails. */
    private static Credentials fromProperties(final String prefix, final XioProperties.ClientCredentials properties)
    {
        if (!properties.hasAny())
        {
            return Credentials.NONE;
        }
        // The failures name the user name's property, never a secret's value.
        if (properties.getToken() != null)
        {
            if (properties.getUsername() != null || properties.getPassword() != null)
            {
                throw new InvalidConfigurationPropertyValueException(prefix + ".token", "******",
                    "set either a token or a username and password, not both");
            }
            return Credentials.bearer(properties.getToken());
        }
        if (properties.getUsername() == null || properties.getPassword() == null)
        {
            throw new InvalidConfigurationPropertyValueException(prefix + ".username", properties.getUsername(),
                "a username needs a password (" + prefix + ".password), and a password a username");
        }
        return Credentials.password(properties.getUsername(), properties.getPassword());
    }

    /**
     * A service client's TLS options: its own SSL bundle's, used for the instances' tls portals; none without one
     * (the instances' addresses are not known before they register).
     */
    private static TlsOptions serviceTls(final XioProperties.NamedClient settings, final String serviceId,
        final String prefix, final BeanFactory beans)
    {
        if (settings.getSsl().getBundle() == null)
        {
            return null;
        }
        return XioSslBundles.tlsOptions(beans.getBeanProvider(SslBundles.class).getIfAvailable(),
            prefix + ".ssl.bundle", settings.getSsl().getBundle(), "tls://service/" + serviceId)
            .withVerifyHostname(!settings.getSsl().hasVerifyHostname() || settings.getSsl().isVerifyHostname());
    }

    /**
     * The TLS options of the client's SSL bundle, or null for none: its own (which needs a tls:// address), else
     * for a tls:// address {@code xio.client.ssl}'s, so that one default serves the tls clients among others; the
     * client's own verify-hostname applies to either.
     */
    private static TlsOptions tls(final XioProperties.NamedClient settings, final String prefix,
        final XioProperties.ClientSsl defaults, final String address, final BeanFactory beans)
    {
        final boolean own = settings != null && settings.getSsl().getBundle() != null;
        final XioProperties.ClientSsl ssl = own ? settings.getSsl() : defaults;
        if (ssl.getBundle() == null || !own && !"tls".equals(XioUri.parse(address).scheme()))
        {
            return null;
        }
        return XioSslBundles.tlsOptions(beans.getBeanProvider(SslBundles.class).getIfAvailable(),
            own ? prefix + ".ssl.bundle" : "xio.client.ssl.bundle", ssl.getBundle(), address)
            .withVerifyHostname(settings != null && settings.getSsl().hasVerifyHostname()
                ? settings.getSsl().isVerifyHostname() : ssl.isVerifyHostname());
    }

    /**
     * The named client's settings, bound now from {@code xio.clients.<name>} under the name's canonical form (so
     * every relaxed spelling and environment variable of it is read, and nothing during AOT processing); else the
     * entry of {@code xio.clients} whose key is the name or equals it in Boot's relaxed comparison, which is how a
     * bracketed key ({@code xio.clients[orderService]}) reaches the client.
     */
    private static XioProperties.NamedClient namedClient(final String name, final XioProperties properties,
        final BeanFactory beans)
    {
        return Binder.get(beans.getBean(Environment.class)).bind(prefix(name), XioProperties.NamedClient.class)
            .orElseGet(() -> mapEntry(name, properties.getClients()));
    }

    private static XioProperties.NamedClient mapEntry(final String name,
        final Map<String, XioProperties.NamedClient> clients)
    {
        if (clients.containsKey(name))
        {
            return clients.get(name);
        }
        final ConfigurationPropertyName canonical = ConfigurationPropertyName.of(prefix(name));
        final ConfigurationPropertyName parent = ConfigurationPropertyName.of("xio.clients");
        return clients.entrySet().stream()
            .filter(entry -> parent.append(ConfigurationPropertyName.adapt(entry.getKey(), '.')).equals(canonical))
            .map(Map.Entry::getValue).findFirst().orElseGet(XioProperties.NamedClient::new);
    }

    /**
     * The named client's address: the first {@link XioClientConnectionDetails} bean's that knows the client, else
     * its properties'. Fails when there is none or the properties give two.
     */
    private static XioClientConnectionDetails.Address address(final Class<?> api, final String name,
        final XioProperties.NamedClient settings, final BeanFactory beans)
    {
        final XioClientConnectionDetails.Address supplied = beans.getBeanProvider(XioClientConnectionDetails.class)
            .orderedStream().map(details -> details.getAddress(name)).filter(java.util.Objects::nonNull).findFirst()
            .orElse(null);
        if (supplied != null)
        {
            return supplied;
        }
        if (settings.getUri() == null && settings.getServiceId() == null)
        {
            throw new XioClientConfigurationException(api, name);
        }
        if (settings.getUri() != null && settings.getServiceId() != null)
        {
            final String prefix = prefix(name);
            throw new XioClientConfigurationException(api, name, "sets both " + prefix + ".uri and " + prefix +
                ".service-id; a client calls one address or one service");
        }
        return new XioClientConnectionDetails.Address(settings.getUri(), settings.getServiceId());
    }

    /**
     * The canonical prefix of a client's properties: {@code xio.clients.order-service} for {@code orderService},
     * {@code xio.clients.xml-service} for {@code XMLService}, {@code xio.clients.s3-client} for {@code s3Client}.
     * A dash goes where a word starts: before an upper-case letter that follows a lower-case letter or a digit, and
     * before the last upper-case letter of an acronym that a lower-case letter follows.
     */
    static String prefix(final String name)
    {
        return "xio.clients." + (name == null ? "" : dashed(name));
    }

    private static String dashed(final String name)
    {
        final StringBuilder dashed = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (i > 0 && Character.isUpperCase(c))
            {
                final char before = name.charAt(i - 1);
                final boolean wordAfterAcronym = Character.isUpperCase(before) && i + 1 < name.length() &&
                    Character.isLowerCase(name.charAt(i + 1));
                if (Character.isLowerCase(before) || Character.isDigit(before) || wordAfterAcronym)
                {
                    dashed.append('-');
                }
            }
            dashed.append(Character.toLowerCase(c));
        }
        return dashed.toString();
    }

    /**
     * Checks that {@code @XioClient} on {@code api} names its client with a name that has a property prefix (letters,
     * digits and dashes), when the client's bean is registered.
     *
     * @throws IllegalStateException naming the interface when it does not
     */
    public static void checkName(final Class<?> api, final String name)
    {
        if (name != null && !name.isEmpty() && !ConfigurationPropertyName.isValid(prefix(name)))
        {
            throw new IllegalStateException("@XioClient(\"" + name + "\") on " + api.getName() + " is not a " +
                "valid client name: it becomes the property prefix " + prefix(name) + ", and a name may hold " +
                "only letters, digits and dashes and must start with a letter or digit");
        }
    }

    @Override
    public Class<?> getObjectType()
    {
        return api;
    }
}
