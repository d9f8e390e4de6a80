package io.xio.spring.autoconfigure.service;

import io.xio.annotation.XioService;
import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.spring.autoconfigure.codec.XioCodec;
import io.xio.spring.autoconfigure.method.Invocation;
import io.xio.spring.autoconfigure.method.ServiceMethod;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves one exported bean: finds the method a request names, decodes its arguments (data segments as
 * read-only views into the received message, valid until the method returns or its future completes), runs it
 * inline or on the worker executor, and answers with the result or the exception. Thread-safe.
 */
public final class ServiceDispatcher implements RequestHandler
{
    private final String resource;
    private final Object target;
    private final Map<String, ServiceMethod> methods = new HashMap<>();
    private final XioCodec codec;
    private final Executor executor;
    private static final int MAX_QUEUED = 4096;

    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean draining;

    public ServiceDispatcher(final String resource, final Class<?> api, final Object target, final XioCodec codec,
        final XioService.Dispatch dispatch, final Executor worker)
    {
        this.resource = resource;
        this.target = target;
        this.codec = codec;
        this.executor = dispatch == XioService.Dispatch.INLINE ? Runnable::run : worker;
        for (final Method method : api.getMethods())
        {
            if (!method.isDefault() && !java.lang.reflect.Modifier.isStatic(method.getModifiers()))
            {
                final ServiceMethod described = ServiceMethod.of(method, api);
                if (methods.put(described.wireName(), described) != null)
                {
                    throw new IllegalStateException("two methods of " + api.getName() + " share the wire name " +
                        described.wireName() + "; set @XioMethod(name) on one of them");
                }
            }
        }
    }

    public String resource()
    {
        return resource;
    }

    /** Calls being executed now, for graceful shutdown. */
    public int running()
    {
        return running.get();
    }

    /** Refuse new calls from now on: the application is shutting down. */
    public void drain()
    {
        draining = true;
    }

    @Override
    public void onRequest(final InboundRequest request)
    {
        final Message message = request.message();
        final int queued = running.incrementAndGet();
        if (draining || queued > MAX_QUEUED)
        {
            // One-way messages count as delivered once queued: this bound is their back-pressure.
            refuse(request, message, draining ? "is shutting down" : "has " + MAX_QUEUED + " calls queued or running");
            return;
        }
        try
        {
            executor.execute(() -> invoke(request, message));
        }
        catch (final RejectedExecutionException ex)
        {
            refuse(request, message, "is saturated: " + ex.getMessage());
        }
    }

    /** A call this service will not run: released at once, and the caller told (one-way senders are not). */
    private void refuse(final InboundRequest request, final Message message, final String why)
    {
        running.decrementAndGet();
        message.close();
        if (!request.isOneWay())
        {
            request.fail(new RejectedExecutionException("service '" + resource + "' " + why));
        }
    }

    private void invoke(final InboundRequest request, final Message message)
    {
        ServiceMethod method = null;
        try
        {
            final ByteBuffer header = message.header();
            final String name = Invocation.readName(header);
            method = methods.get(name);
            if (method == null)
            {
                throw new NoSuchMethodException("service '" + resource + "' has no method " + name);
            }
            final ByteBuffer[] segments = new ByteBuffer[message.segmentCount()];
            for (int i = 0; i < segments.length; i++)
            {
                segments[i] = message.segment(i);
            }
            final Object result = method.method().invoke(target, Invocation.arguments(method, codec, header, segments));
            if (method.returnKind() == ServiceMethod.ReturnKind.FUTURE && result instanceof CompletionStage<?> stage)
            {
                final ServiceMethod called = method;
                request.onCancel(() -> stage.toCompletableFuture().cancel(true)); // the caller gave up
                stage.whenComplete((value, ex) ->
                {
                    if (request.isCancelled())
                    {
                        // Cancelling the future does not stop work it started, which may still read the
                        // arguments' views: the buffer is abandoned to the GC instead of reused.
                        message.abandon();
                        running.decrementAndGet();
                        return;
                    }
                    answer(request, message, called, value,
                        ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null ? ex.getCause() : ex);
                });
            }
            else
            {
                answer(request, message, method, result, null);
            }
        }
        catch (final InvocationTargetException ex)
        {
            answer(request, message, method, null, ex.getCause());
        }
        catch (final Exception ex)
        {
            answer(request, message, method, null, ex);
        }
    }

    /**
     * Answers a call and lets go of its message: once the answer is written, since a result may be a view
     * into it (a service that returns the buffer it was given sends it back without a copy).
     */
    private void answer(final InboundRequest request, final Message message, final ServiceMethod method,
        final Object value, final Throwable failure)
    {
        try
        {
            if (request.isOneWay() || request.isCancelled())
            {
                message.close();
            }
            else if (failure != null)
            {
                message.close();
                request.fail(failure);
            }
            else if (method.returnKind() == ServiceMethod.ReturnKind.VOID || value == null && method.resultIsSegment())
            {
                message.close();
                request.respond(Outbound.empty());
            }
            else if (method.resultIsSegment())
            {
                request.respond(Outbound.of(ByteBuffer.allocate(0), Invocation.asBuffer(value))
                    .releaseAfterSend(message));
            }
            else
            {
                final byte[] encoded = codec.encode(value, method.resultType());
                message.close();
                request.respond(Outbound.of(encoded));
            }
        }
        catch (final RuntimeException ex)
        {
            message.close();
            try
            {
                request.fail(ex); // the result could not be encoded, say
            }
            catch (final IllegalStateException answeredAlready)
            {
                // the answer went out before the failure: it stands
            }
        }
        finally
        {
            running.decrementAndGet();
        }
    }

}
