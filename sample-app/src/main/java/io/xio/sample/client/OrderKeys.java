package io.xio.sample.client;

import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioClientCall;
import io.xio.spring.call.XioClientInterceptor;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * Gives each payment the application's own idempotency key, taken from its order ({@link #key}), in place of the one
 * xio makes per call: a payment sent again for the same order, by a client that lost the first one's answer or by
 * another client, runs at most once and gets the first one's receipt. Runs for the payments client only; thread-safe.
 */
@Component
@Profile("!cluster & !server & !client")
public class OrderKeys implements XioClientInterceptor
{
    /** The key of {@code order}'s payment. */
    public static String key(final String order)
    {
        return "pay-" + order;
    }

    @Override
    public @Nullable Object intercept(final XioClientCall call, final XioCallChain chain) throws Throwable
    {
        if (call.method().getName().equals("pay"))
        {
            call.idempotencyKey(key((String)call.arguments().get(0)));
        }
        return chain.proceed();
    }

    @Override
    public boolean appliesTo(final String client, final String service)
    {
        return client.equals("payments");
    }
}
