package io.xio.spring.security;

import io.xio.engine.Credentials;
import io.xio.engine.SetupRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * A set-up's bearer token ({@link Credentials.Bearer}) as a {@link BearerTokenAuthenticationToken}, for a
 * {@code JwtAuthenticationProvider} (made from the application's {@code JwtDecoder}), an opaque-token provider, or
 * the application's {@code AuthenticationManager}. Needs spring-security-oauth2-resource-server. Stateless.
 */
public final class BearerTokenAuthenticationExtractor implements XioAuthenticationExtractor, Ordered
{
    @Override
    public @Nullable Authentication extract(final SetupRequest request)
    {
        return request.credentials() instanceof Credentials.Bearer bearer
            ? new BearerTokenAuthenticationToken(bearer.token()) : null;
    }

    @Override
    public int getOrder()
    {
        return BEARER_ORDER;
    }
}
