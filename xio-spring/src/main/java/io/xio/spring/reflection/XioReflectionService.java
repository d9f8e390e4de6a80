package io.xio.spring.reflection;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.ServiceDispatcher;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import tools.jackson.databind.json.JsonMapper;

import java.lang.reflect.Parameter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The server's {@link XioReflection}: exported by the service exporter like any {@code @XioService} bean (so the
 * portals' authentication, the interceptors, the security context and the observations apply to its calls), it
 * describes the services the exporter exports. It also holds the codec of calls in JSON, which the services take
 * while it is there; the schemas describe the JSON that codec's mapper reads and writes. Thread-safe: each
 * description is made and encoded once and its bytes kept.
 */
@XioService(XioReflection.RESOURCE)
public final class XioReflectionService implements XioReflection
{
    /** Resource names starting with it are xio's own: an application's service cannot take one. */
    public static final String RESERVED_PREFIX = "xio.";

    /**
     * Writes the descriptions themselves: their field names are this interface's, whatever naming strategy the
     * application's mapper has.
     */
    private static final JsonMapper DESCRIPTIONS = new JsonMapper();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private final Supplier<List<ServiceDispatcher>> services;
    private final JacksonXioCodec json;
    private final int maxDescriptionBytes;
    /** Encoded descriptions by service, and by service and method name (only names that exist are kept). */
    private final Map<String, byte[]> described = new ConcurrentHashMap<>();

    /**
     * Describes the {@code services} exported at the time of each call; takes calls in JSON with {@code json},
     * whose mapper the schemas follow.
     */
    public XioReflectionService(final Supplier<List<ServiceDispatcher>> services, final JacksonXioCodec json)
    {
        this(services, json, MAX_DESCRIPTION_BYTES);
    }

    XioReflectionService(final Supplier<List<ServiceDispatcher>> services, final JacksonXioCodec json,
        final int maxDescriptionBytes)
    {
        this.services = services;
        this.json = json;
        this.maxDescriptionBytes = maxDescriptionBytes;
    }

    /** Whether {@code resource} is a name reserved for xio's own resources. */
    public static boolean isReserved(final String resource)
    {
        return resource.startsWith(RESERVED_PREFIX);
    }

    /** The codec of calls whose caller asked for JSON. */
    public JacksonXioCodec json()
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
    public @Nullable ByteBuffer describe(final String service)
    {
        final ServiceDispatcher dispatcher = dispatcher(service);
        if (dispatcher == null)
        {
            return null;
        }
        return ByteBuffer.wrap(described.computeIfAbsent(service, name -> encode(description(dispatcher,
            method -> true, json.mapper())))).asReadOnlyBuffer();
    }

    @Override
    public @Nullable ByteBuffer describe(final String service, final String method)
    {
        final ServiceDispatcher dispatcher = dispatcher(service);
        if (dispatcher == null)
        {
            return null;
        }
        final Predicate<ServiceMethod> named = named(dispatcher, method);
        if (dispatcher.methods().values().stream().noneMatch(named))
        {
            return ByteBuffer.wrap(encode(description(dispatcher, named, json.mapper()))).asReadOnlyBuffer();
        }
        return ByteBuffer.wrap(described.computeIfAbsent(service + "\n" + method,
            key -> encode(description(dispatcher, named, json.mapper())))).asReadOnlyBuffer();
    }

    /**
     * Every exported service (this one excepted) with all its methods, by resource name: what
     * {@link #describe(String)} sends for each, as objects, for documents made on the server (such as an OpenAPI
     * document), which no message limit bounds. Any thread.
     */
    public List<ServiceDescription> descriptions()
    {
        return exported().stream().map(service -> description(service, method -> true, json.mapper())).toList();
    }

    /** The method of that wire name, else those of that Java name. */
    private static Predicate<ServiceMethod> named(final ServiceDispatcher dispatcher, final String method)
    {
        if (dispatcher.methods().containsKey(method))
        {
            return candidate -> candidate.wireName().equals(method);
        }
        return candidate -> candidate.method().getName().equals(method);
    }

    private @Nullable ServiceDispatcher dispatcher(final String service)
    {
        return exported().stream().filter(dispatcher -> dispatcher.resource().equals(service)).findFirst()
            .orElse(null);
    }

    private List<ServiceDispatcher> exported()
    {
        return services.get().stream().filter(service -> !isReserved(service.resource()))
            .sorted(java.util.Comparator.comparing(ServiceDispatcher::resource)).toList();
    }

    /** A description as it travels; refused when larger than the bound, rather than failing at the engine. */
    private byte[] encode(final ServiceDescription description)
    {
        final byte[] bytes = DESCRIPTIONS.writeValueAsBytes(description);
        if (bytes.length > maxDescriptionBytes)
        {
            throw new DescriptionTooLargeException("the description of '" + description.name() + "'" +
                (description.methods().size() == 1 ? " method " + description.methods().get(0).wireName() : "") +
                " is " + bytes.length + " bytes, more than the " + maxDescriptionBytes + " a description may have" +
                (description.methods().size() > 1 ? "; describe one method at a time: describe(service, method)"
                    : ""));
        }
        return bytes;
    }

    /** A too large description: its caller is told why, with a code it can act on. */
    @XioExceptionHandler
    XioError tooLarge(final DescriptionTooLargeException ex)
    {
        return XioError.of(XioErrorCode.RESOURCE_EXHAUSTED, ex.getMessage());
    }

    /** A service's methods that {@code included} takes and the schemas, as {@code mapper} writes JSON. */
    static ServiceDescription description(final ServiceDispatcher service, final Predicate<ServiceMethod> included,
        final tools.jackson.databind.ObjectMapper mapper)
    {
        final JsonSchemas schemas = new JsonSchemas(mapper);
        final List<MethodDescription> methods = new ArrayList<>();
        for (final ServiceMethod method : service.methods().values())
        {
            if (!included.test(method))
            {
                continue;
            }
            final String[] names = parameterNames(method);
            final List<ParameterDescription> parameters = new ArrayList<>();
            // A suspend function's Continuation, last, is no parameter of the call.
            for (int i = 0; i < method.parameterTypes().length; i++)
            {
                parameters.add(new ParameterDescription(names[i], schemas.schema(method.parameterTypes()[i]),
                    method.segments()[i], method.method().getParameterTypes()[i].isPrimitive()));
            }
            methods.add(new MethodDescription(method.method().getName(), method.wireName(), parameters,
                method.returnKind() == ServiceMethod.ReturnKind.VOID || method.resultType() == Void.class ? null
                    : schemas.schema(method.resultType()),
                method.kind(), method.idempotent(), method.exactlyOnce(),
                method.timeout() == null ? null : method.timeout().toString()));
        }
        return new ServiceDescription(service.resource(), service.api().getName(), methods, schemas.definitions());
    }

    /**
     * The parameters' names as declared: a Kotlin function's from its metadata (with {@code kotlin-reflect}), which
     * {@code kotlinc} writes without {@code -java-parameters}; else as compiled ({@code arg0} without
     * {@code -parameters}).
     */
    private static String[] parameterNames(final ServiceMethod method)
    {
        final String[] discovered = NAMES.getParameterNames(method.method());
        if (discovered != null && discovered.length >= method.parameterTypes().length)
        {
            return discovered;
        }
        return Arrays.stream(method.method().getParameters()).map(Parameter::getName)
            .toArray(String[]::new);
    }

    /** A description larger than a caller may be sent. */
    static final class DescriptionTooLargeException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        DescriptionTooLargeException(final String message)
        {
            super(message, null, false, false);
        }
    }
}
