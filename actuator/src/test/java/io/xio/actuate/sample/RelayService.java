package io.xio.actuate.sample;

import io.opentelemetry.api.trace.Span;
import io.xio.annotation.XioClient;
import io.xio.annotation.XioService;

/** Relays to the greeter of the next server, and notes which trace was current while it ran. */
@XioService("relay")
public class RelayService implements Relay
{
    @XioClient("greeter")
    public Greeter greeter;

    /** The trace id current inside the last call's service method. */
    public volatile String traceIdInside;

    @Override
    public String relay(final String name)
    {
        traceIdInside = Span.current().getSpanContext().getTraceId();
        return greeter.greet(name);
    }

    @Override
    public String relay(final String name, final int times)
    {
        return relay(name).repeat(times);
    }
}
