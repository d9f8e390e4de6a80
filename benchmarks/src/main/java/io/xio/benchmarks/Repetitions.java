package io.xio.benchmarks;

import java.util.Arrays;

/** Figures from repeated runs: each run gives an array of figures; these pick one figure across the runs. */
public final class Repetitions
{
    private Repetitions()
    {
    }

    /** Figure {@code index} of every run, sorted: median in the middle, spread at the ends. */
    public static double[] sorted(final double[][] runs, final int index)
    {
        final double[] values = new double[runs.length];
        for (int i = 0; i < runs.length; i++)
        {
            values[i] = runs[i][index];
        }
        Arrays.sort(values);
        return values;
    }

    public static double median(final double[][] runs, final int index)
    {
        final double[] values = sorted(runs, index);
        return values[values.length / 2];
    }
}
