package io.xio.spring.autoconfigure.sample.exactlyonce.client;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioMethod;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers.Receipt;

import java.util.concurrent.CompletableFuture;

/** {@link io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers#transfer} waited for on a future. */
@XioClient("transfers")
public interface AsyncTransfersClient
{
    @XioMethod(exactlyOnce = true)
    CompletableFuture<Receipt> transfer(String id, long amount);
}
