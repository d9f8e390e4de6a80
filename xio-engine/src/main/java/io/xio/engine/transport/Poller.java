package io.xio.engine.transport;

/** Work a transport needs done every duty cycle (drain a ring, poll a completion queue). Context thread only. */
public interface Poller
{
    /** Does what work is ready; returns how much, 0 when none. */
    int poll();

    /** Whether work is ready, checked just before the context parks; called on the context thread. */
    boolean hasWork();
}
