package io.xio.sample.client;

import io.xio.annotation.XioClient;
import io.xio.sample.api.BlobStore;
import org.springframework.context.annotation.Profile;

/**
 * The same blob store over shared memory ({@code xio.clients.blobs-shm.uri}): same interface, other transport, no
 * other code. None in the cluster profile, whose client finds its servers through discovery instead, nor in the server
 * role. Thread-safe.
 */
@XioClient("blobs-shm")
@Profile("!cluster & !server")
public interface ShmBlobsClient extends BlobStore
{
}
