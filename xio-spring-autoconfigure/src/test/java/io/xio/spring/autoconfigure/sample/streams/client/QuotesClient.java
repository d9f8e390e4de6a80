package io.xio.spring.autoconfigure.sample.streams.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.streams.api.Quotes;

/** The client side of {@link Quotes}, configured under {@code xio.clients.quotes}. */
@XioClient("quotes")
public interface QuotesClient extends Quotes
{
}
