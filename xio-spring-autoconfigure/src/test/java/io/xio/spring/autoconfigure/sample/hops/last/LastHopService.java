package io.xio.spring.autoconfigure.sample.hops.last;

import io.xio.annotation.XioService;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.autoconfigure.sample.hops.api.LastHop;

import java.util.concurrent.atomic.AtomicInteger;

/** Reads its call's deadline and metadata from {@link XioServerCall#current()}, and adds a trailer. */
@XioService("last")
public class LastHopService implements LastHop
{
    /** Calls run, for tests. */
    public static final AtomicInteger CALLS = new AtomicInteger();

    @Override
    public String last(final String what)
    {
        CALLS.incrementAndGet();
        final XioServerCall call = XioServerCall.current();
        call.trailers().put("served-by", "last");
        return what + " " + call.timeRemaining().toMillis() + " " + call.metadata().get("tenant");
    }
}
