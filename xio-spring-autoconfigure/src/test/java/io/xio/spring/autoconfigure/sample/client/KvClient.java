package io.xio.spring.autoconfigure.sample.client;

import io.xio.spring.autoconfigure.sample.api.KvStore;

import io.xio.annotation.XioClient;

/** The client side of {@link KvStore}, configured under {@code xio.clients.kv}. */
@XioClient("kv")
public interface KvClient extends KvStore
{
}
