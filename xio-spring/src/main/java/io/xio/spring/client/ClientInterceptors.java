package io.xio.spring.client;

import io.xio.engine.Metadata;
import io.xio.spring.call.InterceptorChain;
import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioClientCall;
import io.xio.spring.call.XioClientInterceptor;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The interceptors of one client, in order, and the chain its calls run through: resolved on the client's first
 * call, not when its proxy is made, since an interceptor may itself depend on an {@code @XioClient} (a token
 * service, say). A client without any has the empty chain, which its calls skip: no call object, no chain.
 * Thread-safe.
 */
final class ClientInterceptors
{
    private final Supplier<List<XioClientInterceptor>> source;
    private final Class<?> api;
    private final String client;
    private final String resource;
    private volatile @Nullable List<XioClientInterceptor> resolved;

    /**
     * The interceptors of {@code source} that apply to the client of {@code api} named {@code client} (its name, or
     * its address when it has none) calling {@code resource}.
     */
    ClientInterceptors(final Supplier<List<XioClientInterceptor>> source, final Class<?> api, final String client,
        final String resource)
    {
        this.source = source;
        this.api = api;
        this.client = client;
        this.resource = resource;
    }

    /** Whether the chain is empty. */
    boolean isEmpty()
    {
        return resolved().isEmpty();
    }

    /**
     * The call as interceptors see it: with the {@code timeout} it has so far and the {@code metadata} made for it
     * (or null).
     */
    XioClientCall call(final Method method, final @Nullable Object[] arguments, final Duration timeout,
        final @Nullable Metadata metadata)
    {
        return new XioClientCall(client, resource, method, arguments, timeout, metadata);
    }

    /** {@code call} through the interceptors, the first outermost, then {@code last}. */
    @Nullable Object run(final XioClientCall call, final XioCallChain last) throws Throwable
    {
        return InterceptorChain.client(resolved(), call, last);
    }

    /**
     * Refuses a second send of one call by an interceptor that proceeded twice: only xio may send a call again (an
     * idempotent one), a second send of another could run it twice.
     */
    void once(final boolean sentBefore, final Method method)
    {
        if (sentBefore)
        {
            throw new IllegalStateException("an interceptor proceeded twice with one call of " +
                api.getSimpleName() + "." + method.getName() + "; xio retries idempotent calls itself");
        }
    }

    private List<XioClientInterceptor> resolved()
    {
        List<XioClientInterceptor> interceptors = resolved;
        if (interceptors == null)
        {
            interceptors = source.get().stream().filter(i -> i.appliesTo(client, resource)).toList();
            resolved = interceptors;
        }
        return interceptors;
    }
}
