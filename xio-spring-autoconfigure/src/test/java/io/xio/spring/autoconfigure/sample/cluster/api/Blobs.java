package io.xio.spring.autoconfigure.sample.cluster.api;

import io.xio.annotation.XioMethod;

/** A service run by several servers under one service id: reads may run twice, writes must not. */
public interface Blobs
{
    /** The id of the server that answered. */
    @XioMethod(idempotent = true)
    String read(String key);

    /** Counts one write on the server that ran it; returns that server's id. */
    String write(String key);
}
