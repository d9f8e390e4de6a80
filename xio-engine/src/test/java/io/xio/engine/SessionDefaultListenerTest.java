package io.xio.engine;

import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A Session that is not xio's own gets request(..., ResponseListener) from the interface, with the same contract. */
class SessionDefaultListenerTest
{
    private static Session sessionAnswering(final XioFuture<Message> future)
    {
        final InvocationHandler handler = (proxy, method, args) ->
        {
            if (method.isDefault())
            {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            if (method.getName().equals("request") && args.length == 2)
            {
                return future;
            }
            throw new UnsupportedOperationException(method.getName());
        };
        return (Session)Proxy.newProxyInstance(Session.class.getClassLoader(), new Class<?>[] {Session.class},
            handler);
    }

    private static final class Told implements ResponseListener
    {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onResponse(final long requestId, final Message response)
        {
            events.add("response " + requestId);
        }

        @Override
        public void onFailure(final long requestId, final Throwable cause)
        {
            events.add("failure " + requestId + " " + cause.getMessage());
        }
    }

    @Test
    void aRequestRefusedAtOnceReturnsZeroAfterTellingTheListener()
    {
        final XioFuture<Message> refused = new XioFuture<>(0, false);
        refused.completeExceptionally(new BackPressureException("full"));
        final Told told = new Told();

        assertThat(sessionAnswering(refused).request(Outbound.empty(), CallOptions.DEFAULT, told)).isZero();
        assertThat(told.events).containsExactly("failure 0 full");
    }

    @Test
    void aRequestFailedLaterReturnsItsIdAndTheListenerHearsIt()
    {
        final XioFuture<Message> pending = new XioFuture<>(42, false);
        final Told told = new Told();

        assertThat(sessionAnswering(pending).request(Outbound.empty(), CallOptions.DEFAULT, told)).isEqualTo(42);
        assertThat(told.events).isEmpty();
        pending.completeExceptionally(new XioTimeoutException("late"));
        assertThat(told.events).containsExactly("failure 42 late");
    }

    @Test
    void receiptsAreRefused()
    {
        assertThatThrownBy(() -> sessionAnswering(new XioFuture<>(1, false)).request(Outbound.empty(),
            CallOptions.DEFAULT.withReceipt(true), new Told())).isInstanceOf(IllegalArgumentException.class);
    }
}
