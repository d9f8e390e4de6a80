package io.xio.spring.client;

import io.xio.engine.Credentials;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.function.Supplier;

/**
 * The credentials supplier of one client's sessions: its {@link XioCredentialsProvider} beans first, then the
 * credentials its settings give (from its {@code credentials.*} properties). Immutable; the supplier is called on
 * context threads.
 */
final class CredentialsSource
{
    private CredentialsSource()
    {
    }

    /**
     * @param client what the providers are told the client is called
     * @param configured what the client presents when no provider gives anything ({@link Credentials#NONE} for
     *                   nothing)
     * @param providers the providers, in order (looked up at the first set-up)
     */
    static Supplier<Credentials> of(final String client, final Credentials configured,
        final Supplier<List<XioCredentialsProvider>> providers)
    {
        return new Supplier<>()
        {
            private volatile @Nullable List<XioCredentialsProvider> resolved;

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
}
