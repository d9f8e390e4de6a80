package io.xio.spring.http.openapi;

import io.xio.spring.reflection.XioReflection.MethodDescription;
import io.xio.spring.reflection.XioReflection.ParameterDescription;
import io.xio.spring.reflection.XioReflection.ServiceDescription;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the operation of one method as the gateway serves it: its request body (an object of the arguments by
 * parameter name, or a binary body for a method whose one parameter is a data segment), its answers by the
 * method's kind (200 with the result, raw bytes too when it is a data segment, 204 for void, 202 for one-way,
 * newline-delimited JSON or server-sent events for a server stream) and the shared errors and headers. One
 * instance per document; not thread-safe.
 */
final class OperationWriter
{
    /** The kinds of the methods the gateway does not call: the client sends a stream. */
    static final List<String> NOT_OVER_HTTP = List.of("client-stream", "bidi-stream");

    private static final String JSON = "application/json";
    private static final String OCTET_STREAM = "application/octet-stream";

    private final SchemaComponents components;
    private final OperationNames names = new OperationNames();

    OperationWriter(final SchemaComponents components)
    {
        this.components = components;
    }

    /** The operation of {@code method} of {@code service}, its schemas rewritten by {@code schemas}. */
    Map<String, Object> operation(final ServiceDescription service, final MethodDescription method,
        final SchemaComponents.Rewriter schemas)
    {
        final String id = names.operationId(service.name(), method, service.methods());
        final Map<String, Object> operation = new LinkedHashMap<>();
        operation.put("tags", List.of(service.name()));
        operation.put("summary", method.name() + " of " + simpleName(service.type()));
        operation.put("description", description(service, method));
        operation.put("operationId", id);
        final List<Object> parameters = new ArrayList<>();
        parameters.add(GatewayComponents.parameterReference(GatewayComponents.TIMEOUT_PARAMETER));
        if (method.exactlyOnce())
        {
            parameters.add(GatewayComponents.parameterReference(GatewayComponents.IDEMPOTENCY_KEY_PARAMETER));
        }
        operation.put("parameters", parameters);
        if (!method.parameters().isEmpty())
        {
            operation.put("requestBody", requestBody(id, method, schemas));
        }
        final Map<String, Object> responses = new LinkedHashMap<>();
        responses.putAll(answers(method, schemas));
        responses.putAll(GatewayComponents.errorReferences(!method.parameters().isEmpty()));
        operation.put("responses", responses);
        operation.put("x-xio-wire-name", method.wireName());
        operation.put("x-xio-kind", method.kind());
        if (method.idempotent())
        {
            operation.put("x-xio-idempotent", true);
        }
        if (method.exactlyOnce())
        {
            operation.put("x-xio-exactly-once", true);
        }
        if (method.timeout() != null)
        {
            operation.put("x-xio-timeout", method.timeout());
        }
        return operation;
    }

    private static String description(final ServiceDescription service, final MethodDescription method)
    {
        final StringBuilder text = new StringBuilder("Calls `").append(method.wireName()).append("` of `")
            .append(service.type()).append("`.");
        switch (method.kind())
        {
            case "one-way" -> text.append(" One-way: accepted, the service answers nothing.");
            case "server-stream" -> text.append(" The service streams its answer: one result per line " +
                "(application/x-ndjson) or per event (text/event-stream).");
            default ->
            {
            }
        }
        if (method.idempotent())
        {
            text.append(" Idempotent: a call may be sent again after a failure.");
        }
        if (method.exactlyOnce())
        {
            text.append(" Exactly-once: a call sent again with the same Idempotency-Key gets the first call's " +
                "answer.");
        }
        if (method.timeout() != null)
        {
            text.append(" Deadline: ").append(method.timeout()).append('.');
        }
        return text.toString();
    }

    /** The arguments by parameter name, as a component named after the operation so generated models are too. */
    private Map<String, Object> requestBody(final String id, final MethodDescription method,
        final SchemaComponents.Rewriter schemas)
    {
        final Map<String, Object> properties = new LinkedHashMap<>();
        method.parameters().forEach(parameter -> properties.put(parameter.name(), schemas.rewrite(parameter.schema())));
        final Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("type", "object");
        arguments.put("title", OperationNames.pascal(id) + "Request");
        arguments.put("description", "The arguments of " + method.wireName() + ", by parameter name.");
        arguments.put("properties", properties);
        // As the gateway reads them: a parameter left out is null, which only a primitive cannot be.
        final List<String> required = method.parameters().stream().filter(ParameterDescription::required)
            .map(ParameterDescription::name).toList();
        if (!required.isEmpty())
        {
            arguments.put("required", required);
        }
        final String name = components.add(OperationNames.pascal(id) + "Request", arguments);
        final Map<String, Object> content = new LinkedHashMap<>();
        content.put(JSON, Map.of("schema", SchemaComponents.reference(name)));
        if (method.parameters().size() == 1 && method.parameters().get(0).segment())
        {
            content.put(OCTET_STREAM, Map.of("schema", binary()));
        }
        final Map<String, Object> body = new LinkedHashMap<>();
        body.put("required", true);
        body.put("content", content);
        return body;
    }

    private static Map<String, Object> answers(final MethodDescription method,
        final SchemaComponents.Rewriter schemas)
    {
        final Map<String, Object> result = method.returns() == null ? new LinkedHashMap<>()
            : schemas.rewrite(method.returns());
        return switch (method.kind())
        {
            case "void" -> Map.of("204", Map.of("description", "Done; no content."));
            case "one-way" -> Map.of("202", Map.of("description", "Accepted; the service answers nothing."));
            case "server-stream" ->
            {
                final Map<String, Object> content = new LinkedHashMap<>();
                content.put("application/x-ndjson", Map.of("schema", result));
                final Map<String, Object> event = new LinkedHashMap<>();
                event.put("type", "string");
                event.put("description", "Server-sent events whose data are results in JSON.");
                content.put("text/event-stream", Map.of("schema", event));
                yield Map.of("200", Map.of("description", "The results as the service streams them, each of " +
                    "the schema: one per line, or one per event.", "content", content));
            }
            default ->
            {
                if (method.returns() == null || result.equals(Map.of("type", "null")))
                {
                    // Mono<Void>, a future of Void, a suspend function of Unit: the reflection gives no schema, and
                    // generators would make a class of a null one; they read no value
                    yield Map.of("200", Map.of("description", "Done; the body is JSON null."));
                }
                final Map<String, Object> content = new LinkedHashMap<>();
                content.put(JSON, Map.of("schema", result));
                if ("base64".equals(result.get("contentEncoding")))
                {
                    content.put(OCTET_STREAM, Map.of("schema", binary())); // bytes: raw when the caller accepts it
                }
                yield Map.of("200", Map.of("description", "The result.", "content", content));
            }
        };
    }

    private static Map<String, Object> binary()
    {
        final Map<String, Object> binary = new LinkedHashMap<>();
        binary.put("type", "string");
        binary.put("format", "binary");
        return binary;
    }

    private static String simpleName(final String type)
    {
        return type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1);
    }
}
