package io.xio.spring.autoconfigure.client;

import io.xio.engine.Credentials;
import io.xio.spring.autoconfigure.XioProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.util.List;
import java.util.function.Supplier;

/**
 * The credentials supplier of one client's sessions: its {@link XioCredentialsProvider} beans first, then its
 * {@code credentials.*} properties (its own section's, else {@code xio.client.credentials}). Immutable; the
 * supplier is called on context threads.
 */
final class CredentialsSource
{
    private CredentialsSource()
    {
    }

    /**
     * @param client what the providers are told the client is called
     * @param own the client's own section, or null for a client given only a URI
     * @param ownPrefix that section's property prefix
     * @param defaults {@code xio.client.credentials}
     * @param providers the providers, in order (looked up at the first set-up)
     */
    static Supplier<Credentials> of(final String client, final XioProperties.ClientCredentials own,
        final String ownPrefix, final XioProperties.ClientCredentials defaults,
        final Supplier<List<XioCredentialsProvider>> providers)
    {
        final Credentials configured = own != null && own.hasAny() ? fromProperties(ownPrefix, own)
            : fromProperties("xio.client.credentials", defaults);
        return new Supplier<>()
        {
            private volatile List<XioCredentialsProvider> resolved;

            @Override
            public Credentials get()
            {
                List<XioCredentialsProvider> list = resolved;
                if (list == null)
                {
                    list = List.copyOf(providers.get());
                    resolved = list;
                }
                for (final XioCredentialsProvider provider : list)
                {
                    final Credentials credentials = provider.credentials(client);
                    if (credentials != null)
                    {
                        return credentials;
                    }
                }
                return configured;
            }

            @Override
            public String toString()
            {
                return "credentials of " + client; // never the secret
            }
        };
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
}
