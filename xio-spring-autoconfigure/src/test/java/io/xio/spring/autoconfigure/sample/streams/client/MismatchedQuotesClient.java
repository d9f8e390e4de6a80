package io.xio.spring.autoconfigure.sample.streams.client;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioMethod;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A client whose idea of {@code Quotes.total} is wrong: it streams words where the service expects quotes. */
@XioClient("mismatched")
public interface MismatchedQuotesClient
{
    @XioMethod(name = "total(Flux)")
    Mono<Double> total(Flux<String> words);

    @XioMethod(name = "ignoring(Flux)")
    Mono<Long> ignoring(Flux<String> words);
}
