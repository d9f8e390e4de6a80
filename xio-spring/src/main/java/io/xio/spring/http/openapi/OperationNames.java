package io.xio.spring.http.openapi;

import io.xio.spring.reflection.XioReflection.MethodDescription;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The operation ids of one document: identifiers that code generators turn into method names, unique in the
 * document and stable while the services' signatures are. An id is the service's name and the method's Java name
 * in camel case ({@code ordersPlace} for {@code place} of {@code orders}); an overloaded method adds its parameter
 * types ({@code ordersFindWithStringInt}), a method renamed with {@code @XioMethod(name)} uses its wire name. One
 * instance per document; not thread-safe.
 */
final class OperationNames
{
    private final Set<String> taken = new HashSet<>();

    /** The id of {@code method} of {@code service}, whose methods are {@code methods}. */
    String operationId(final String service, final MethodDescription method, final List<MethodDescription> methods)
    {
        final boolean overloaded = methods.stream()
            .filter(other -> other.name().equals(method.name()) && isDerived(other)).count() > 1;
        final String own;
        if (!isDerived(method))
        {
            own = method.wireName();
        }
        else if (overloaded && !method.parameters().isEmpty())
        {
            own = method.name() + " with " + types(method.wireName());
        }
        else
        {
            own = method.name();
        }
        final String wanted = camel(service + " " + own);
        String id = wanted.isEmpty() ? "call" : wanted;
        for (int i = 2; !taken.add(id); i++)
        {
            id = wanted + i;
        }
        return id;
    }

    /** Whether the wire name is the one xio derives from the signature: {@code name(Type,Type)}. */
    private static boolean isDerived(final MethodDescription method)
    {
        return method.wireName().startsWith(method.name() + "(") && method.wireName().endsWith(")");
    }

    /** The parameter types of a derived wire name, arrays spelt out: {@code byte[]} is {@code byte array}. */
    private static String types(final String wireName)
    {
        return wireName.substring(wireName.indexOf('(') + 1, wireName.length() - 1).replace("[]", " array ");
    }

    /** {@code text}'s letters and digits as one lower camel case identifier, starting with a letter. */
    static String camel(final String text)
    {
        final StringBuilder id = new StringBuilder();
        boolean upper = false;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (!Character.isLetterOrDigit(c) || c > 0x7f)
            {
                upper = id.length() > 0;
                continue;
            }
            if (id.length() == 0 && Character.isDigit(c))
            {
                id.append('n');
            }
            id.append(upper ? Character.toUpperCase(c) : id.length() == 0 ? Character.toLowerCase(c) : c);
            upper = false;
        }
        return id.toString();
    }

    /** {@code text} as an upper camel case identifier. */
    static String pascal(final String text)
    {
        final String camel = camel(text);
        return camel.isEmpty() ? camel : camel.substring(0, 1).toUpperCase(Locale.ROOT) + camel.substring(1);
    }
}
