package io.xio.actuate.sample;

import io.opentelemetry.api.trace.Span;
import io.xio.annotation.XioService;
import org.slf4j.MDC;

/** Relays to the greeter of the next server, and notes which trace was current while it ran. */
@XioService("relay")
public class RelayService implements Relay
{
    private final Greeter greeter;

    /** The trace id current inside the last call's service method. */
    public volatile String traceIdInside;
    /** The trace id log lines inside the last call's service method carry. */
    public volatile String loggedTraceId;

    public RelayService(final GreeterClient greeter)
    {
        this.greeter = greeter;
    }

    @Override
    public String relay(final String name)
    {
        traceIdInside = Span.current().getSpanContext().getTraceId();
        loggedTraceId = MDC.get("traceId");
        return greeter.greet(name);
    }

    @Override
    public String relay(final String name, final int times)
    {
        return relay(name).repeat(times);
    }
}
