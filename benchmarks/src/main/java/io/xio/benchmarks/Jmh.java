package io.xio.benchmarks;

/**
 * Runs JMH with the options given as one string (how {@code -Dbenchmark.args} reaches a main), e.g.
 * {@code ./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.Jmh
 * -Dbenchmark.args="RoundTrip -prof gc"}.
 */
public final class Jmh
{
    private Jmh()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String joined = String.join(" ", args).trim();
        org.openjdk.jmh.Main.main(joined.isEmpty() ? new String[0] : joined.split("\\s+"));
    }
}
