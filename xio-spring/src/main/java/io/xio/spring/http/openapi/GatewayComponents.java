package io.xio.spring.http.openapi;

import io.xio.engine.IdempotencyKeys;
import io.xio.spring.error.XioErrorCode;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every operation of the gateway shares, as components: the problem details (RFC 9457) of a failed call with
 * xio's error code, the error responses by HTTP status with the codes each stands for (as gRPC's HTTP mapping has
 * them), and the headers a call may carry (its deadline, an exactly-once call's idempotency key). Stateless.
 */
final class GatewayComponents
{
    /** The media type of a failed call's answer. */
    static final String PROBLEM_JSON = "application/problem+json";
    /** The header that carries a call's deadline. */
    static final String TIMEOUT_HEADER = "xio-timeout";
    /** The header that carries an exactly-once call's idempotency key. */
    static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

    static final String TIMEOUT_PARAMETER = "XioTimeout";
    static final String IDEMPOTENCY_KEY_PARAMETER = "IdempotencyKey";

    /** The error statuses, the name of their response component, and the codes answered with each. */
    private static final List<ErrorStatus> ERRORS = List.of(
        new ErrorStatus(400, "BadRequest", "The arguments are wrong, or the service is not in the state the call " +
            "needs.", XioErrorCode.INVALID_ARGUMENT, XioErrorCode.FAILED_PRECONDITION, XioErrorCode.OUT_OF_RANGE),
        new ErrorStatus(401, "Unauthorized", "The caller did not prove who it is.", XioErrorCode.UNAUTHENTICATED),
        new ErrorStatus(403, "Forbidden", "The caller may not make this call.", XioErrorCode.PERMISSION_DENIED),
        new ErrorStatus(404, "NotFound", "What the call names does not exist.", XioErrorCode.NOT_FOUND),
        new ErrorStatus(409, "Conflict", "What the call would create exists already, or the call conflicted with " +
            "another.", XioErrorCode.ALREADY_EXISTS, XioErrorCode.ABORTED),
        new ErrorStatus(429, "TooManyRequests", "A quota or a resource ran out, such as the service's bounds.",
            XioErrorCode.RESOURCE_EXHAUSTED),
        new ErrorStatus(499, "ClientClosedRequest", "The caller gave up on the call.", XioErrorCode.CANCELLED),
        new ErrorStatus(500, "InternalServerError", "The service failed.", XioErrorCode.UNKNOWN,
            XioErrorCode.INTERNAL, XioErrorCode.DATA_LOSS),
        new ErrorStatus(501, "NotImplemented", "The service does not implement the call.",
            XioErrorCode.UNIMPLEMENTED),
        new ErrorStatus(503, "ServiceUnavailable", "The service cannot take the call now; trying again later may " +
            "succeed.", XioErrorCode.UNAVAILABLE),
        new ErrorStatus(504, "GatewayTimeout", "The call's deadline passed before it finished.",
            XioErrorCode.DEADLINE_EXCEEDED));

    /** The answer to a request whose body is larger than the gateway takes: it is refused unread. */
    private static final ErrorStatus TOO_LARGE = new ErrorStatus(413, "ContentTooLarge", "The request body is " +
        "larger than the gateway takes.", XioErrorCode.RESOURCE_EXHAUSTED);

    private GatewayComponents()
    {
    }

    /** The schemas of a problem: the {@code problem} object and the {@code code} enumeration it refers to. */
    static void addSchemas(final SchemaComponents schemas, final String problem, final String code)
    {
        final Map<String, Object> codes = new LinkedHashMap<>();
        codes.put("type", "string");
        codes.put("title", code);
        codes.put("description", "What kind of failure a call met, as gRPC's canonical status codes name them.");
        codes.put("enum", Arrays.stream(XioErrorCode.values()).map(Enum::name).toList());
        schemas.add(code, codes);
        final Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("type", described(typed("string", "uri-reference"), "A URI reference that identifies the " +
            "problem type; about:blank when the status says it all."));
        properties.put("title", described(typed("string", null), "A short summary of the problem type."));
        properties.put("status", described(typed("integer", "int32"), "The HTTP status of this answer."));
        properties.put("detail", described(typed("string", null), "What went wrong with this call."));
        properties.put("instance", described(typed("string", "uri-reference"), "The call that failed."));
        properties.put("code", described(SchemaComponents.reference(code), "xio's error code: what a caller over " +
            "xio reads from the exception."));
        final Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("title", problem);
        schema.put("description", "Problem details (RFC 9457) of a failed call, with xio's error code.");
        schema.put("properties", properties);
        schema.put("required", List.of("status", "code"));
        schemas.add(problem, schema);
    }

    /** The error responses, by component name, each a problem of {@code problem}. */
    static Map<String, Object> responses(final String problem)
    {
        final Map<String, Object> responses = new LinkedHashMap<>();
        for (final ErrorStatus error : java.util.stream.Stream.concat(ERRORS.stream(), java.util.stream.Stream.of(
            TOO_LARGE)).toList())
        {
            final Map<String, Object> response = new LinkedHashMap<>();
            response.put("description", error.description() + " Codes: " +
                String.join(", ", Arrays.stream(error.codes()).map(Enum::name).toList()) + ".");
            response.put("content", Map.of(PROBLEM_JSON, Map.of("schema", SchemaComponents.reference(problem))));
            responses.put(error.name(), response);
        }
        return responses;
    }

    /** An operation's error responses, by status: references to the components; with a body, also 413. */
    static Map<String, Object> errorReferences(final boolean body)
    {
        final Map<String, Object> references = new java.util.TreeMap<>();
        ERRORS.forEach(error -> references.put(String.valueOf(error.status()),
            Map.of("$ref", "#/components/responses/" + error.name())));
        if (body)
        {
            references.put(String.valueOf(TOO_LARGE.status()), Map.of("$ref", "#/components/responses/" +
                TOO_LARGE.name()));
        }
        return references;
    }

    /** The header parameters, by component name. */
    static Map<String, Object> parameters()
    {
        final Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put(TIMEOUT_PARAMETER, header(TIMEOUT_HEADER, false, "The call's deadline from now, such as " +
            "250ms, 2s or PT2S: past it the call is cancelled and answered with DEADLINE_EXCEEDED (504). A " +
            "method's own deadline applies when it is shorter.", typed("string", null), "250ms"));
        final Map<String, Object> key = typed("string", null);
        key.put("minLength", 1);
        key.put("maxLength", IdempotencyKeys.MAX_LENGTH);
        key.put("pattern", "^[A-Za-z0-9._:-]+$");
        parameters.put(IDEMPOTENCY_KEY_PARAMETER, header(IDEMPOTENCY_KEY_HEADER, true, "The key of an " +
            "exactly-once call, which it needs: the service runs a call once per key, and a call sent again with " +
            "a key gets the first call's answer.", key, "4f1c2d0e-8a7b-4b8e-9d55-0e4b3c2a1f00"));
        return parameters;
    }

    /** A reference to the parameter component {@code name}. */
    static Map<String, Object> parameterReference(final String name)
    {
        return Map.of("$ref", "#/components/parameters/" + name);
    }

    private static Map<String, Object> header(final String name, final boolean required, final String description,
        final Map<String, Object> schema, final String example)
    {
        final Map<String, Object> parameter = new LinkedHashMap<>();
        parameter.put("name", name);
        parameter.put("in", "header");
        parameter.put("required", required);
        parameter.put("description", description);
        parameter.put("schema", schema);
        parameter.put("example", example);
        return parameter;
    }

    private static Map<String, Object> typed(final String type, final @org.jspecify.annotations.Nullable String format)
    {
        final Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", type);
        if (format != null)
        {
            schema.put("format", format);
        }
        return schema;
    }

    private static Map<String, Object> described(final Map<String, Object> schema, final String description)
    {
        if (schema.containsKey("$ref"))
        {
            final Map<String, Object> annotated = new LinkedHashMap<>(schema);
            annotated.put("description", description); // 3.1: a reference may carry a description
            return annotated;
        }
        schema.put("description", description);
        return schema;
    }

    /** One error status of the gateway. */
    private record ErrorStatus(int status, String name, String description, XioErrorCode... codes)
    {
    }
}
