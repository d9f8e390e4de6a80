package io.xio.spring.http.webflux;

import io.xio.spring.http.XioHttpCalls;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The route {@code POST {prefix}/{service}/{method}} on WebFlux, handing each request to {@link XioHttpCalls}: the
 * body gathered up to the limit (a declared length over it refused before reading, a streamed one once it passes,
 * never held whole), the answer written when the call ends; a server stream written as the client's demand allows,
 * its cancel (the client went away) cancelling the call, as does a client that leaves before a whole answer.
 * Stateless; the web server's threads (the call itself runs on the service's worker, or, for an {@code INLINE}
 * service, on the event loop that read the request).
 */
public final class XioHttpWebFlux
{
    private static final MediaType NDJSON = MediaType.parseMediaType(XioHttpCalls.NDJSON);

    private XioHttpWebFlux()
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
        return RouterFunctions.route(RequestPredicates.GET(prefix + path),
            request -> Mono.fromCallable(answer::get).flatMap(XioHttpWebFlux::answered));
    }

    private static Mono<ServerResponse> handle(final XioHttpCalls calls, final ServerRequest request)
    {
        final long max = calls.maxRequestBytes();
        if (request.headers().contentLength().orElse(-1) > max)
        {
            return written(calls.tooLarge(), calls);
        }
        final int limit = (int)Math.min(max, Integer.MAX_VALUE - 8);
        final Mono<byte[]> body = DataBufferUtils.join(request.bodyToFlux(DataBuffer.class), limit)
            .map(joined ->
            {
                final byte[] bytes = new byte[joined.readableByteCount()];
                joined.read(bytes);
                DataBufferUtils.release(joined);
                return bytes;
            })
            .defaultIfEmpty(new byte[0]);
        return Mono.zip(body, request.principal().map(Optional::of)
                .defaultIfEmpty(Optional.empty()))
            .flatMap(read -> Mono.fromFuture(() -> calls.call(exchange(request, read.getT2().orElse(null)),
                read.getT1(), request.headers().firstHeader(HttpHeaders.CONTENT_TYPE),
                request.headers().firstHeader(HttpHeaders.ACCEPT)))) // its cancel (the client left) cancels the call
            .flatMap(outcome -> written(outcome, calls))
            .onErrorResume(DataBufferLimitException.class, tooLarge -> written(calls.tooLarge(), calls));
    }

    private static XioHttpCalls.Exchange exchange(final ServerRequest request, final @Nullable Principal principal)
    {
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
                return principal;
            }

            @Override
            public String host()
            {
                return request.uri().getHost() == null ? "localhost" : request.uri().getHost();
            }

            @Override
            public int port()
            {
                return request.uri().getPort();
            }

            @Override
            public String peer()
            {
                return request.remoteAddress().map(XioHttpWebFlux::peer).orElse("?");
            }
        };
    }

    private static Mono<ServerResponse> written(final XioHttpCalls.Outcome outcome, final XioHttpCalls calls)
    {
        if (outcome instanceof XioHttpCalls.Answer answer)
        {
            return answered(answer);
        }
        final XioHttpCalls.Streamed streamed = (XioHttpCalls.Streamed)outcome;
        final Flux<?> values = Flux.from((Publisher<?>)streamed.values());
        if (streamed.events())
        {
            final Flux<ServerSentEvent<String>> events = values
                .map(value -> ServerSentEvent.builder(text(calls.encode(streamed.call(), value))).event("message")
                    .build())
                .onErrorResume(failure -> Mono.just(ServerSentEvent.builder(
                    text(calls.problem(failure, streamed.call()).body())).event("error").build()));
            return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM)
                .body(BodyInserters.fromServerSentEvents(events));
        }
        // The status went out with the first value: a failure is the stream's last line.
        final Flux<byte[]> lines = values.map(value -> line(calls.encode(streamed.call(), value)))
            .onErrorResume(failure -> Mono.just(line(calls.problem(failure, streamed.call()).body())));
        return ServerResponse.ok().contentType(NDJSON).body(BodyInserters.fromPublisher(lines, byte[].class));
    }

    private static Mono<ServerResponse> answered(final XioHttpCalls.Answer answer)
    {
        final ServerResponse.BodyBuilder response = ServerResponse.status(answer.status());
        return answer.contentType() == null ? response.build()
            : response.contentType(MediaType.parseMediaType(answer.contentType())).bodyValue(answer.body());
    }

    /** The client's address as on Spring MVC: {@code host:port}, the host as an IP address. */
    private static String peer(final InetSocketAddress address)
    {
        return (address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress()) +
            ":" + address.getPort();
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
}
