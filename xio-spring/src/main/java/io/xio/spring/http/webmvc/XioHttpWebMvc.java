package io.xio.spring.http.webmvc;

import io.xio.spring.error.XioErrorCode;
import io.xio.spring.http.XioHttpCalls;
import io.xio.spring.http.XioHttpException;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RequestPredicates;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The route {@code POST {prefix}/{service}/{method}} on Spring MVC, handing each request to {@link XioHttpCalls}:
 * the body read up to the limit (a declared length over it refused before reading, a streamed one once it passes),
 * the answer written asynchronously, a server stream written one value at a time, each requested only once the one
 * before was written, so a slow client slows the stream (written on a bounded-elastic thread, never the one the
 * stream sends on); a write that fails (the client went away) cancels it.
 * Stateless; the web server's threads.
 */
public final class XioHttpWebMvc
{
    private static final MediaType NDJSON = MediaType.parseMediaType(XioHttpCalls.NDJSON);
    /** The web server's async request timeout stopped a stream: its last line or event says so. */
    private static final XioHttpException TIMED_OUT = new XioHttpException(XioErrorCode.DEADLINE_EXCEEDED,
        "the web server's request timeout ended the stream");

    private XioHttpWebMvc()
    {
    }

    /** The route of every service's calls under {@code prefix} (such as {@code /xio}). */
    public static RouterFunction<ServerResponse> routes(final String prefix, final XioHttpCalls calls)
    {
        return RouterFunctions.route(RequestPredicates.POST(prefix + "/{service}/{method}"),
            request -> handle(calls, request));
    }

    /**
     * The route {@code GET {prefix}{path}} answering what {@code answer} gives, such as the OpenAPI document at
     * {@code /openapi.json}.
     */
    public static RouterFunction<ServerResponse> get(final String prefix, final String path,
        final java.util.function.Supplier<XioHttpCalls.Answer> answer)
    {
        return RouterFunctions.route(RequestPredicates.GET(prefix + path), request -> answered(answer.get()));
    }

    private static ServerResponse handle(final XioHttpCalls calls, final ServerRequest request) throws IOException
    {
        final long declared = request.headers().contentLength().orElse(-1);
        final byte[] body = declared > calls.maxRequestBytes() ? null
            : read(request.servletRequest().getInputStream(), calls.maxRequestBytes());
        if (body == null)
        {
            return written(calls.tooLarge(), calls);
        }
        final CompletableFuture<XioHttpCalls.Outcome> outcome = calls.call(exchange(request), body,
            request.headers().firstHeader(HttpHeaders.CONTENT_TYPE),
            request.headers().firstHeader(HttpHeaders.ACCEPT));
        final XioHttpCalls.Outcome now = outcome.getNow(null);
        // No timeout of the web server's own (its default would answer 503 while the call runs): the call's deadline
        // answers it in time, or nothing does, as on WebFlux.
        return now != null ? written(now, calls)
            : ServerResponse.async(outcome.thenApply(done -> written(done, calls)), Duration.ZERO);
    }

    /** The body, or null when it is larger than {@code max}: read no further than one byte past it. */
    private static byte @Nullable [] read(final InputStream in, final long max) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] chunk = new byte[8192];
        long total = 0;
        for (int read = in.read(chunk); read >= 0; read = in.read(chunk))
        {
            total += read;
            if (total > max)
            {
                return null;
            }
            out.write(chunk, 0, read);
        }
        return out.toByteArray();
    }

    private static XioHttpCalls.Exchange exchange(final ServerRequest request)
    {
        final HttpServletRequest servlet = request.servletRequest();
        final String service = request.pathVariable("service");
        final String method = request.pathVariable("method");
        return new XioHttpCalls.Exchange()
        {
            @Override
            public String service()
            {
                return service;
            }

            @Override
            public String method()
            {
                return method;
            }

            @Override
            public List<String> headers(final String name)
            {
                return request.headers().header(name);
            }

            @Override
            public @Nullable Principal principal()
            {
                return request.principal().orElse(null);
            }

            @Override
            public String host()
            {
                return servlet.getServerName();
            }

            @Override
            public int port()
            {
                return servlet.getServerPort();
            }

            @Override
            public String peer()
            {
                return servlet.getRemoteAddr() + ":" + servlet.getRemotePort();
            }
        };
    }

    private static ServerResponse written(final XioHttpCalls.Outcome outcome, final XioHttpCalls calls)
    {
        if (outcome instanceof XioHttpCalls.Answer answer)
        {
            return answered(answer);
        }
        final XioHttpCalls.Streamed streamed = (XioHttpCalls.Streamed)outcome;
        @SuppressWarnings("unchecked")
        final Publisher<Object> values = offThePublishersThread((Publisher<Object>)streamed.values());
        if (streamed.events())
        {
            return ServerResponse.sse(sse -> values.subscribe(new Writer(stop ->
            {
                sse.onError(stop);
                sse.onTimeout(() -> stop.accept(TIMED_OUT));
            }, value ->
                sse.event("message").data(text(calls.encode(streamed.call(), value))), failure ->
                {
                    sse.event("error").data(text(calls.problem(failure, streamed.call()).body()));
                }, sse::complete)), Duration.ZERO);
        }
        return ServerResponse.ok().contentType(NDJSON).stream(stream -> values.subscribe(new Writer(stop ->
            {
                stream.onError(stop);
                stream.onTimeout(() -> stop.accept(TIMED_OUT));
            }, value ->
            {
                stream.write(line(calls.encode(streamed.call(), value)));
                stream.flush();
            }, failure ->
            {
                // The status went out with the first value: the failure is the stream's last line.
                stream.write(line(calls.problem(failure, streamed.call()).body()));
                stream.flush();
            }, stream::complete)));
    }

    private static ServerResponse answered(final XioHttpCalls.Answer answer)
    {
        final ServerResponse.BodyBuilder response = ServerResponse.status(answer.status());
        return answer.contentType() == null ? response.build()
            : response.contentType(MediaType.parseMediaType(answer.contentType())).body(answer.body());
    }

    /**
     * {@code values} delivered on a bounded-elastic thread, one at a time: a servlet write blocks, and must not
     * block the thread the stream sends on (a Reactor parallel thread, an xio context), as Spring MVC's own reactive
     * return values are written.
     */
    private static Publisher<Object> offThePublishersThread(final Publisher<Object> values)
    {
        return Flux.from(values).publishOn(Schedulers.boundedElastic(), 1);
    }

    private static String text(final byte[] json)
    {
        return new String(json, StandardCharsets.UTF_8);
    }

    private static byte[] line(final byte[] json)
    {
        final byte[] line = Arrays.copyOf(json, json.length + 1);
        line[json.length] = '\n';
        return line;
    }

    /** Writes what it is sent; throws what the response's stream throws. */
    @FunctionalInterface
    private interface Write<T>
    {
        void write(T value) throws IOException;
    }

    /**
     * Subscribes to a server stream for one response: asks for one value, writes it, asks for the next; cancels the
     * stream when a write fails or the response errs (the client went away).
     */
    private static final class Writer implements Subscriber<Object>
    {
        private final Write<Object> value;
        private final Write<Throwable> failure;
        private final Runnable complete;
        private final Consumer<Consumer<Throwable>> onError;
        private volatile @Nullable Subscription subscription;
        private final AtomicBoolean stopped = new AtomicBoolean();

        Writer(final Consumer<Consumer<Throwable>> onError,
            final Write<Object> value, final Write<Throwable> failure, final Runnable complete)
        {
            this.onError = onError;
            this.value = value;
            this.failure = failure;
            this.complete = complete;
        }

        @Override
        public void onSubscribe(final Subscription subscription)
        {
            this.subscription = subscription;
            onError.accept(this::stop); // the client went away, or the request timed out
            subscription.request(1);
        }

        @Override
        public void onNext(final Object next)
        {
            try
            {
                value.write(next);
                subscription.request(1);
            }
            catch (final IOException | RuntimeException ex)
            {
                stop(ex);
            }
        }

        /** Cancels the stream and ends the response, once: the client is gone, or the web server's timeout passed. */
        private void stop(final @Nullable Throwable why)
        {
            if (stopped.compareAndSet(false, true))
            {
                subscription.cancel();
                if (why == TIMED_OUT)
                {
                    try
                    {
                        failure.write(why); // not a normal end: the client is told
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        // the client went away as well
                    }
                }
                complete.run();
            }
        }

        @Override
        public void onError(final Throwable thrown)
        {
            if (stopped.get())
            {
                return;
            }
            try
            {
                failure.write(thrown);
            }
            catch (final IOException | RuntimeException ex)
            {
                // the client went away as well
            }
            complete.run();
        }

        @Override
        public void onComplete()
        {
            if (!stopped.get())
            {
                complete.run();
            }
        }
    }
}
