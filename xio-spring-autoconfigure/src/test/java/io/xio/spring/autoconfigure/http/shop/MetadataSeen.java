package io.xio.spring.autoconfigure.http.shop;

import io.xio.spring.call.XioCallChain;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.call.XioServerInterceptor;
import org.jspecify.annotations.Nullable;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Records the metadata each call to the shop arrived with, by method name, and the transport it came over. */
public class MetadataSeen implements XioServerInterceptor
{
    /** The metadata's text, by method name. */
    public final Map<String, String> byMethod = new ConcurrentHashMap<>();
    /** The session's transport, by method name. */
    public final Map<String, String> transports = new ConcurrentHashMap<>();

    @Override
    public @Nullable Object intercept(final XioServerCall call, final XioCallChain chain) throws Throwable
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < call.metadata().size(); i++)
        {
            text.append(call.metadata().key(i)).append('=').append(call.metadata().text(i)).append(';');
        }
        byMethod.put(call.method().getName(), text.toString());
        transports.put(call.method().getName(), call.session().uri().scheme());
        return chain.proceed();
    }
}
