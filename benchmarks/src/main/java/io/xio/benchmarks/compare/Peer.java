package io.xio.benchmarks.compare;

/**
 * A library under comparison, both sides: the server half runs in one JVM, the client half in another, and
 * both receive the same variant (the library's settings, e.g. {@code tcp,poll=spin}) and {@link Workload}.
 * Implementations are stateless; each half is called once per JVM.
 */
public interface Peer
{
    /** A running server half. */
    interface Server extends AutoCloseable
    {
        /** What the client half needs to reach this server: a URI, a port, a directory. */
        String address();
    }

    /** Starts the server half and returns once it accepts clients. */
    Server serve(String variant, Workload workload) throws Exception;

    /** Connects to {@code address}, runs the workload through {@link CallLoop} and returns what it measured. */
    Measurement run(String variant, String address, Workload workload) throws Exception;

    /** JVM options the peer needs beyond the defaults. */
    default java.util.List<String> jvmOptions()
    {
        return java.util.List.of();
    }
}
