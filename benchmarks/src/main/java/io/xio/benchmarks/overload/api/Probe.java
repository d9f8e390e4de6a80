package io.xio.benchmarks.overload.api;

/** A cheap service next to the overloaded one: how the server answers everybody else meanwhile. */
public interface Probe
{
    byte[] ping(byte[] payload);
}
