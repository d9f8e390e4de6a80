/**
 * What the server and its clients share, and all a client needs: the {@link io.xio.sample.api.BlobStore},
 * {@link io.xio.sample.api.Quotes} and {@link io.xio.sample.api.Payments} interfaces, their records and the checksum
 * both sides compute. Nothing here
 * depends on the server's code, so the package could be a jar of its own that a client application depends on.
 */
package io.xio.sample.api;
