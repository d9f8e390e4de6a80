package io.xio.spring.http;

import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.lang.reflect.Parameter;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * Decodes an HTTP call's body into its method's arguments: a JSON object whose members are the parameters by name
 * (as the reflection names them), or a JSON array of them in order (as the CLI sends them); an empty body for a
 * method without parameters (or whose parameters may all be null); for a method whose only parameter is a data
 * segment, also the raw bytes of an {@code application/octet-stream} body. Data segments in JSON are base64
 * strings. What does not decode is refused naming the parameter, never quoting the body. Stateless; any thread.
 */
final class XioHttpArguments
{
    private final ObjectMapper json;

    XioHttpArguments(final ObjectMapper json)
    {
        this.json = json;
    }

    /**
     * The arguments of {@code method} in {@code body}.
     *
     * @param raw whether the body is {@code application/octet-stream}: the bytes of the method's one segment
     * @throws XioHttpException 400 (415 for raw bytes a method cannot take) saying what is wrong
     */
    @Nullable Object[] decode(final ServiceMethod method, final byte[] body, final boolean raw)
    {
        // The declared parameters: a Kotlin suspend function's Continuation, last, is none.
        final Parameter[] parameters = Arrays.copyOf(method.method().getParameters(), method.parameterTypes().length);
        if (raw)
        {
            if (parameters.length != 1 || !method.segments()[0])
            {
                throw new XioHttpException(415, XioErrorCode.INVALID_ARGUMENT, method.wireName() + " takes its " +
                    "arguments as JSON; only a method whose one parameter is byte[] or ByteBuffer takes an " +
                    "application/octet-stream body");
            }
            return new Object[] {method.parameterTypes()[0] == byte[].class ? body : ByteBuffer.wrap(body)};
        }
        final JsonNode tree = blank(body) ? null : parse(body);
        final @Nullable Object[] arguments = new Object[parameters.length];
        if (tree == null || tree.isNull())
        {
            for (int i = 0; i < parameters.length; i++)
            {
                arguments[i] = value(method, parameters, i, null);
            }
            return arguments;
        }
        if (tree.isArray())
        {
            if (tree.size() != parameters.length)
            {
                throw invalid(method.wireName() + " takes " + parameters.length + " argument" +
                    (parameters.length == 1 ? "" : "s") + ", the array has " + tree.size());
            }
            for (int i = 0; i < parameters.length; i++)
            {
                arguments[i] = value(method, parameters, i, tree.get(i));
            }
            return arguments;
        }
        if (!tree.isObject())
        {
            throw invalid("the body of a call is a JSON object of the arguments by parameter name, or an array of " +
                "them in order");
        }
        for (final Iterator<Map.Entry<String, JsonNode>> members = tree.properties().iterator(); members.hasNext();)
        {
            final String name = members.next().getKey();
            if (Arrays.stream(parameters).noneMatch(parameter -> parameter.getName().equals(name)))
            {
                throw invalid(method.wireName() + " has no parameter named '" + bounded(name) + "' (its parameters: " +
                    String.join(", ", Arrays.stream(parameters).map(Parameter::getName).toList()) + ")");
            }
        }
        for (int i = 0; i < parameters.length; i++)
        {
            arguments[i] = value(method, parameters, i, tree.get(parameters[i].getName()));
        }
        return arguments;
    }

    private JsonNode parse(final byte[] body)
    {
        try
        {
            return json.readTree(body);
        }
        catch (final JacksonException ex)
        {
            final TokenStreamLocation at = ex.getLocation();
            throw invalid("the body is not valid JSON" + (at == null ? "" : " (line " + at.getLineNr() +
                ", column " + at.getColumnNr() + ")"));
        }
    }

    private @Nullable Object value(final ServiceMethod method, final Parameter[] parameters, final int index,
        final @Nullable JsonNode node)
    {
        final Parameter parameter = parameters[index];
        if (node == null || node.isNull() || node.isMissingNode())
        {
            if (parameter.getType().isPrimitive())
            {
                throw invalid(method.wireName() + " needs its parameter '" + parameter.getName() + "' (" +
                    parameter.getType().getName() + "), which the body does not give");
            }
            return null;
        }
        try
        {
            final Object value = json.treeToValue(node, json.getTypeFactory()
                .constructType(method.parameterTypes()[index]));
            return method.segments()[index] && value instanceof byte[] bytes
                && method.parameterTypes()[index] != byte[].class ? ByteBuffer.wrap(bytes) : value;
        }
        catch (final JacksonException | IllegalArgumentException ex)
        {
            throw invalid("the parameter '" + parameter.getName() + "' of " + method.wireName() + " is not a valid " +
                method.parameterTypes()[index].getTypeName() + (method.segments()[index] ? " (base64)" : ""));
        }
    }

    private static boolean blank(final byte[] body)
    {
        for (final byte b : body)
        {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n')
            {
                return false;
            }
        }
        return true;
    }

    /** A name from the body, shortened: it is quoted back to the client. */
    private static String bounded(final String text)
    {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }

    private static XioHttpException invalid(final String message)
    {
        return new XioHttpException(XioErrorCode.INVALID_ARGUMENT, message);
    }
}
