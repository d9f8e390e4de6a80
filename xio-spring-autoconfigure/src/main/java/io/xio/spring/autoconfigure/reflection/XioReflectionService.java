package io.xio.spring.autoconfigure.reflection;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.codec.XioCodec;
import io.xio.spring.autoconfigure.method.ServiceMethod;
import io.xio.spring.autoconfigure.service.ServiceDispatcher;

import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The server's {@link XioReflection}: exported by the service exporter like any {@code @XioService} bean (so the
 * portals' authentication, the interceptors, the security context and the observations apply to its calls), it
 * describes the services the exporter exports. It also holds the codec of calls in JSON, which the services take
 * while it is there. Thread-safe: descriptions are made once per service and kept.
 */
@XioService(XioReflection.RESOURCE)
public final class XioReflectionService implements XioReflection
{
    /** Resource names starting with it are xio's own: an application's service cannot take one. */
    public static final String RESERVED_PREFIX = "xio.";

    private final Supplier<List<ServiceDispatcher>> services;
    private final XioCodec json;
    private final Map<String, ServiceDescription> described = new ConcurrentHashMap<>();

    /**
     * Describes the {@code services} exported at the time of each call; takes calls in JSON with {@code json}.
     */
    public XioReflectionService(final Supplier<List<ServiceDispatcher>> services, final XioCodec json)
    {
        this.services = services;
        this.json = json;
    }

    /** Whether {@code resource} is a name reserved for xio's own resources. */
    public static boolean isReserved(final String resource)
    {
        return resource.startsWith(RESERVED_PREFIX);
    }

    /** The codec of calls whose caller asked for JSON. */
    public XioCodec json()
    {
        return json;
    }

    @Override
    public List<ServiceSummary> list()
    {
        return exported().stream()
            .map(service -> new ServiceSummary(service.resource(), service.api().getName(), service.methods().size()))
            .toList();
    }

    @Override
    public ServiceDescription describe(final String service)
    {
        for (final ServiceDispatcher dispatcher : exported())
        {
            if (dispatcher.resource().equals(service))
            {
                return described.computeIfAbsent(service, name -> description(dispatcher));
            }
        }
        return null;
    }

    private List<ServiceDispatcher> exported()
    {
        return services.get().stream().filter(service -> !isReserved(service.resource()))
            .sorted(java.util.Comparator.comparing(ServiceDispatcher::resource)).toList();
    }

    /** A service's methods and the schemas of their parameters and results. */
    static ServiceDescription description(final ServiceDispatcher service)
    {
        final JsonSchemas schemas = new JsonSchemas();
        final List<MethodDescription> methods = new ArrayList<>();
        for (final ServiceMethod method : service.methods().values())
        {
            final Parameter[] declared = method.method().getParameters();
            final List<ParameterDescription> parameters = new ArrayList<>();
            for (int i = 0; i < declared.length; i++)
            {
                parameters.add(new ParameterDescription(declared[i].getName(),
                    schemas.schema(method.parameterTypes()[i]), method.segments()[i]));
            }
            methods.add(new MethodDescription(method.method().getName(), method.wireName(), parameters,
                method.returnKind() == ServiceMethod.ReturnKind.VOID ? null : schemas.schema(method.resultType()),
                kind(method), method.idempotent(), method.timeout() == null ? null : method.timeout().toString()));
        }
        return new ServiceDescription(service.resource(), service.api().getName(), methods, schemas.definitions());
    }

    private static String kind(final ServiceMethod method)
    {
        if (method.oneWay())
        {
            return "one-way";
        }
        return method.returnKind().name().toLowerCase(java.util.Locale.ROOT);
    }
}
