package io.xio.actuate.sample;

/** A service that answers by calling {@link Greeter} on another server: the middle of a chain of calls. */
public interface Relay
{
    String relay(String name);

    /** An overload: its calls are told apart from the other's by their wire name. */
    String relay(String name, int times);
}
