package io.xio.spring.autoconfigure.sample.cluster.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.cluster.api.Blobs;

/** The client of every blobs server, configured under {@code xio.clients.blobs} (a service-id). */
@XioClient("blobs")
public interface BlobsClient extends Blobs
{
}
