package io.xio.spring.security;

import org.reactivestreams.Publisher;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Carries a call's {@link SecurityContext} into the Reactor context of the {@code Flux} or {@code Mono} its method
 * returned, so that {@link ReactiveSecurityContextHolder} (and reactive method security) sees the caller while the
 * stream runs, long after the method returned. Loaded only when Reactor is present. Stateless; any thread.
 */
final class ReactorSecurityContext
{
    /** Whether Reactor is on the class path (else no method returns its types). */
    static final boolean PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
        ReactorSecurityContext.class.getClassLoader());

    private ReactorSecurityContext()
    {
    }

    /** {@code result} with {@code context} in its Reactor context, when it is a publisher; else {@code result}. */
    static Object carry(final Object result, final SecurityContext context)
    {
        if (result instanceof Mono<?> mono)
        {
            return mono.contextWrite(ReactiveSecurityContextHolder.withSecurityContext(Mono.just(context)));
        }
        if (result instanceof Publisher<?> publisher)
        {
            return Flux.from(publisher).contextWrite(ReactiveSecurityContextHolder.withSecurityContext(
                Mono.just(context)));
        }
        return result;
    }
}
