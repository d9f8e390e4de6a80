package io.xio.sample.client;

import io.xio.annotation.XioClient;
import io.xio.sample.api.Quotes;
import org.springframework.context.annotation.Profile;

/**
 * The quotes feed as this side calls it ({@code xio.clients.quotes.uri}): each subscription to
 * {@link Quotes#quotes} opens a stream. Only in the demo that runs both sides in one JVM, where {@link FeedRunner}
 * reads it. Thread-safe.
 */
@XioClient("quotes")
@Profile("!cluster & !server & !client")
public interface QuotesClient extends Quotes
{
}
