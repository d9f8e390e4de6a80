package io.xio.sample.client;

import io.xio.annotation.XioClient;
import io.xio.sample.api.Payments;
import org.springframework.context.annotation.Profile;

/**
 * The payments as this side calls them ({@code xio.clients.payments.uri}); {@link OrderKeys} gives each payment its
 * order's key. Only in the demo that runs both sides in one JVM, where {@link PaymentsRunner} pays. Thread-safe.
 */
@XioClient("payments")
@Profile("!cluster & !server & !client")
public interface PaymentsClient extends Payments
{
}
