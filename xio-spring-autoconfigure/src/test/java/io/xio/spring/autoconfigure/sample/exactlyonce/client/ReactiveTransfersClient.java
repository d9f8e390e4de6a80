package io.xio.spring.autoconfigure.sample.exactlyonce.client;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioMethod;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers.Receipt;
import reactor.core.publisher.Mono;

/** {@link io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers#transfer} as a {@link Mono}. */
@XioClient("transfers")
public interface ReactiveTransfersClient
{
    @XioMethod(exactlyOnce = true)
    Mono<Receipt> transfer(String id, long amount);
}
