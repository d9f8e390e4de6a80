package io.xio.sample.client;

import io.xio.annotation.XioClient;
import io.xio.sample.api.BlobStore;
import org.springframework.context.annotation.Profile;

/**
 * The blob store as this side calls it: settings under {@code xio.clients.blobs} (a {@code uri}, or a
 * {@code service-id} in the cluster profile). xio makes a bean of it, so a class that needs the store takes it in its
 * constructor; the bean is a proxy whose every call is a transaction with the server. None in the server role: a
 * client bean exists whether or not a class takes it, and its health check would open a session. Thread-safe.
 */
@XioClient("blobs")
@Profile("!server")
public interface BlobsClient extends BlobStore
{
}
