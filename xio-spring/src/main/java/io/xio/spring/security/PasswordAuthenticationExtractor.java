package io.xio.spring.security;

import io.xio.engine.Credentials;
import io.xio.engine.SetupRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;

/**
 * A set-up's user name and password ({@link Credentials.Password}) as a {@link UsernamePasswordAuthenticationToken},
 * for a {@code DaoAuthenticationProvider} or the application's {@code AuthenticationManager}. Stateless.
 */
public final class PasswordAuthenticationExtractor implements XioAuthenticationExtractor, Ordered
{
    @Override
    public @Nullable Authentication extract(final SetupRequest request)
    {
        return request.credentials() instanceof Credentials.Password password
            ? UsernamePasswordAuthenticationToken.unauthenticated(password.username(), password.password()) : null;
    }

    @Override
    public int getOrder()
    {
        return PASSWORD_ORDER;
    }
}
