package io.xio.spring.autoconfigure.security;

import io.xio.spring.autoconfigure.call.XioCallChain;
import io.xio.spring.autoconfigure.call.XioServerCall;
import io.xio.spring.autoconfigure.call.XioServerInterceptor;
import org.springframework.core.Ordered;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;

/**
 * Makes the authentication a call's session was accepted as ({@link io.xio.engine.Session#principal()}) the
 * {@link SecurityContext} of the service method and of the interceptors inside this one, so that method security
 * ({@code @PreAuthorize} with {@code @EnableMethodSecurity}) and {@code SecurityContextHolder} work as in a web
 * request. An anonymous session's calls run with an empty context. Outermost of the server interceptors.
 *
 * <p>The context is set through {@link SecurityContextHolder#getContextHolderStrategy()} on the thread that runs
 * the method and cleared when the method returns, whatever it did, so that nothing of one call is left for the next
 * call on the same worker or context thread. For a method returning a {@code CompletionStage}, only its synchronous
 * part sees it: work the method hands to other threads carries it only if they propagate it
 * ({@code DelegatingSecurityContextExecutor}). Stateless.
 */
public final class XioSecurityContextInterceptor implements XioServerInterceptor, Ordered
{
    /** Outside every other interceptor, so that they see the caller too. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    @Override
    public Object intercept(final XioServerCall call, final XioCallChain chain) throws Throwable
    {
        final SecurityContextHolderStrategy holder = SecurityContextHolder.getContextHolderStrategy();
        final SecurityContext context = holder.createEmptyContext();
        if (call.session().principal() instanceof Authentication authentication)
        {
            context.setAuthentication(authentication);
        }
        holder.setContext(context);
        try
        {
            return chain.proceed();
        }
        finally
        {
            holder.clearContext();
        }
    }

    @Override
    public int getOrder()
    {
        return ORDER;
    }
}
