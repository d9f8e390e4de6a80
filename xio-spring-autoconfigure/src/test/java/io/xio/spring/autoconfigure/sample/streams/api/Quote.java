package io.xio.spring.autoconfigure.sample.streams.api;

/** One price of one symbol, the {@code seq}-th of its feed. */
public record Quote(String symbol, long seq, double price)
{
}
