package io.xio.spring.autoconfigure.sample.failover;

import io.xio.annotation.XioMethod;

/** A service run by several servers under one service id: reads may run twice, writes must not. */
public interface Ledger
{
    /** The id of the server that answered. */
    @XioMethod(idempotent = true)
    String read(String key);

    /** Records one write on the server that ran it; returns that server's id. */
    String write(String key);
}
