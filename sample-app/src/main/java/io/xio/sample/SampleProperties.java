package io.xio.sample;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.List;

/** Settings of the sample application's load generator. */
@ConfigurationProperties("sample")
public class SampleProperties
{
    /** Name this server reports in summaries. */
    private String name = "blobs-1";

    /** Names of the {@code xio.clients.*} entries the load runs against, one after the other. */
    private List<String> clients = List.of("blobs");

    /** Values stored, then read back and verified, per client. */
    private int values = 20_000;

    /** Size of each value in bytes. */
    private int valueSize = 4096;

    /** Reads kept in flight in the throughput phase. */
    private int outstanding = 64;

    /** Length of the throughput phase. */
    private Duration throughputTime = Duration.ofSeconds(3);

    /** Rounds of load per client; 0 repeats until stopped (a failed round is reported and retried). */
    private int rounds = 1;

    /** Pause between rounds, and before retrying a failed one. */
    private Duration roundPause = Duration.ofSeconds(1);

    /** How long the application stays up after the load so its actuator endpoints can be read; negative: forever. */
    private Duration linger = Duration.ofSeconds(60);

    public String getName()
    {
        return name;
    }

    public void setName(final String name)
    {
        this.name = name;
    }

    public List<String> getClients()
    {
        return clients;
    }

    public void setClients(final List<String> clients)
    {
        this.clients = clients;
    }

    public int getValues()
    {
        return values;
    }

    public void setValues(final int values)
    {
        if (values < 1)
        {
            throw new IllegalArgumentException("sample.values must be at least 1, not " + values);
        }
        this.values = values;
    }

    public int getValueSize()
    {
        return valueSize;
    }

    public void setValueSize(final int valueSize)
    {
        if (valueSize < 1)
        {
            throw new IllegalArgumentException("sample.value-size must be at least 1 byte, not " + valueSize);
        }
        this.valueSize = valueSize;
    }

    public int getOutstanding()
    {
        return outstanding;
    }

    public void setOutstanding(final int outstanding)
    {
        if (outstanding < 1)
        {
            throw new IllegalArgumentException("sample.outstanding must be at least 1, not " + outstanding);
        }
        this.outstanding = outstanding;
    }

    public Duration getThroughputTime()
    {
        return throughputTime;
    }

    public void setThroughputTime(final Duration throughputTime)
    {
        this.throughputTime = throughputTime;
    }

    public int getRounds()
    {
        return rounds;
    }

    public void setRounds(final int rounds)
    {
        if (rounds < 0)
        {
            throw new IllegalArgumentException("sample.rounds must be 0 (until stopped) or more, not " + rounds);
        }
        this.rounds = rounds;
    }

    public Duration getRoundPause()
    {
        return roundPause;
    }

    public void setRoundPause(final Duration roundPause)
    {
        this.roundPause = roundPause;
    }

    public Duration getLinger()
    {
        return linger;
    }

    public void setLinger(final Duration linger)
    {
        this.linger = linger;
    }
}
