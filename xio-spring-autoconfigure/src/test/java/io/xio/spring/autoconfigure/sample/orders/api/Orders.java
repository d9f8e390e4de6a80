package io.xio.spring.autoconfigure.sample.orders.api;

/** A shared API in a package of its own, as a jar shared by server and clients would hold it. */
public interface Orders
{
    String place(String item);
}
