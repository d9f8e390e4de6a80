package io.xio.benchmarks.compare;

/**
 * A goal of the comparison: the median over repetitions of {@code ours / peer} for one figure, each
 * repetition's pair taken from the same run, against a bound; with no peer, the figure itself is bounded (bytes
 * per call, CPU % of a core: {@link Figures#unit(int)} says which).
 */
record Goal(String text, String oursId, String peerId, int figure, double bound, boolean atMost)
{
    boolean met(final double value)
    {
        return atMost ? value <= bound : value >= bound;
    }
}
