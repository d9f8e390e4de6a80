package io.xio.spring.security;

import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;

import java.util.List;
import java.util.function.Supplier;

/**
 * Makes the authentication a call's session was accepted as ({@link io.xio.engine.Session#principal()}) the
 * {@link SecurityContext} of the service method and of the interceptors inside this one, so that method security
 * ({@code @PreAuthorize} with {@code @EnableMethodSecurity}) and {@code SecurityContextHolder} work as in a web
 * request. An anonymous session's calls run as an {@link AnonymousAuthenticationToken} named {@link #ANONYMOUS}
 * with {@code ROLE_ANONYMOUS}, so that {@code isAnonymous()} and {@code hasRole(..)} decide (denied) instead of
 * failing for want of an authentication. Outermost of the server interceptors.
 *
 * <p>The context is set through the application's {@link SecurityContextHolderStrategy} bean, else {@link
 * SecurityContextHolder#getContextHolderStrategy()}, on the thread that runs the method, and what the thread had before
 * is restored when the method returns, whatever it did, so that nothing of one call is left for the next call on the
 * same worker or context thread. For a method returning a {@code CompletionStage}, only its synchronous part sees it:
 * work the method hands to other threads carries it only if they propagate it ({@code
 * DelegatingSecurityContextExecutor}). A {@code Flux} or {@code Mono} the method returns (a stream, say) carries the
 * context in its Reactor context instead, where {@code ReactiveSecurityContextHolder} finds it while it runs.
 * Thread-safe.
 */
public final class XioSecurityContextInterceptor implements XioServerInterceptor, Ordered
{
    /** Outside every other interceptor, so that they see the caller too. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

    /** The name an anonymous session's calls run as. */
    public static final String ANONYMOUS = "anonymous";

    private static final List<GrantedAuthority> ANONYMOUS_AUTHORITIES =
        AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS");

    private final Supplier<SecurityContextHolderStrategy> strategy;

    /** Through {@link SecurityContextHolder#getContextHolderStrategy()}, asked at every call. */
    public XioSecurityContextInterceptor()
    {
        this(SecurityContextHolder::getContextHolderStrategy);
    }

    /** Through the strategy {@code strategy} supplies (the application's bean, when it declares one). */
    public XioSecurityContextInterceptor(final Supplier<SecurityContextHolderStrategy> strategy)
    {
        this.strategy = strategy;
    }

    @Override
    public @Nullable Object intercept(final XioServerCall call, final XioCallChain chain) throws Throwable
    {
        final SecurityContextHolderStrategy holder = strategy.get();
        final SecurityContext previous = holder.getContext();
        final SecurityContext context = holder.createEmptyContext();
        context.setAuthentication(call.session().principal() instanceof Authentication authentication
            ? authentication : new AnonymousAuthenticationToken(ANONYMOUS, ANONYMOUS, ANONYMOUS_AUTHORITIES));
        holder.setContext(context);
        try
        {
            final Object result = chain.proceed();
            return result != null && ReactorSecurityContext.PRESENT ? ReactorSecurityContext.carry(result, context)
                : result;
        }
        finally
        {
            // What the thread had before (empty on a context or worker thread), not a cleared holder: a caller
            // that runs the method itself keeps its own context.
            if (previous == null || previous.getAuthentication() == null)
            {
                holder.clearContext();
            }
            else
            {
                holder.setContext(previous);
            }
        }
    }

    @Override
    public int getOrder()
    {
        return ORDER;
    }
}
