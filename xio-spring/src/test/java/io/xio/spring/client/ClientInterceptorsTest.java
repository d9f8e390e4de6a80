package io.xio.spring.client;

import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioClientCall;
import io.xio.spring.call.XioClientInterceptor;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A client's interceptors: resolved on first use, only those that apply, in order; none is the empty chain. */
class ClientInterceptorsTest
{
    interface Api
    {
        String read(String key);
    }

    @Test
    void theInterceptorsAreResolvedOnFirstUseAndOnlyThoseThatApplyRunInOrder() throws Throwable
    {
        final AtomicInteger resolved = new AtomicInteger();
        final List<String> ran = new CopyOnWriteArrayList<>();
        final ClientInterceptors interceptors = new ClientInterceptors(() ->
        {
            resolved.incrementAndGet();
            return List.of(named("first", ran, "kv"), named("other client's", ran, "other"),
                named("second", ran, "kv"));
        }, Api.class, "kv", "kv-service");
        assertThat(resolved).as("not when the proxy is made").hasValue(0);

        assertThat(interceptors.isEmpty()).isFalse();
        final Object result = interceptors.run(call(interceptors), () ->
        {
            ran.add("call");
            return "value";
        });

        assertThat(result).isEqualTo("value");
        assertThat(ran).containsExactly("first", "second", "call");
        assertThat(resolved).hasValue(1);
    }

    @Test
    void noInterceptorsIsTheEmptyChain() throws Throwable
    {
        final ClientInterceptors interceptors = new ClientInterceptors(List::of, Api.class, "kv", "kv-service");
        final XioCallChain last = () -> "value";

        assertThat(interceptors.isEmpty()).isTrue();
        assertThat(interceptors.run(call(interceptors), last)).isEqualTo("value");
    }

    @Test
    void aSecondSendOfOneCallIsRefused() throws Exception
    {
        final ClientInterceptors interceptors = new ClientInterceptors(List::of, Api.class, "kv", "kv-service");
        final Method read = Api.class.getMethod("read", String.class);

        interceptors.once(false, read);
        assertThatThrownBy(() -> interceptors.once(true, read)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("proceeded twice").hasMessageContaining("Api.read");
    }

    @Test
    void theCallAsInterceptorsSeeItNamesTheClientAndService() throws Exception
    {
        final ClientInterceptors interceptors = new ClientInterceptors(List::of, Api.class, "kv", "kv-service");

        final XioClientCall call = call(interceptors);

        assertThat(call.client()).isEqualTo("kv");
        assertThat(call.service()).isEqualTo("kv-service");
        assertThat(call.arguments()).containsExactly("k");
        assertThat(call.timeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(call.metadataIfAny()).isNull();
    }

    private static XioClientCall call(final ClientInterceptors interceptors) throws Exception
    {
        return interceptors.call(Api.class.getMethod("read", String.class), new Object[] {"k"}, Duration.ofSeconds(1),
            null);
    }

    /** An interceptor that notes its name when it runs, for {@code client} only. */
    private static XioClientInterceptor named(final String name, final List<String> ran, final String client)
    {
        return new XioClientInterceptor()
        {
            @Override
            public Object intercept(final XioClientCall call, final XioCallChain chain) throws Throwable
            {
                ran.add(name);
                return chain.proceed();
            }

            @Override
            public boolean appliesTo(final String named, final String service)
            {
                return named.equals(client);
            }
        };
    }
}
