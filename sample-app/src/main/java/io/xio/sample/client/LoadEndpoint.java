package io.xio.sample.client;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/load}: the cluster load's counts (GET), and a switch (POST {@code {"running": false}} pauses it
 * once no call is in flight, {@code true} resumes it).
 */
@Component
@Endpoint(id = "load")
@Profile("!server")
@ConditionalOnProperty(prefix = "sample.cluster", name = "enabled", havingValue = "true")
public class LoadEndpoint
{
    private final ClusterLoad load;

    public LoadEndpoint(final ClusterLoad load)
    {
        this.load = load;
    }

    @ReadOperation
    public ClusterLoad.Stats load()
    {
        return load.stats();
    }

    @WriteOperation
    public ClusterLoad.Stats running(final boolean running) throws InterruptedException
    {
        if (running)
        {
            load.resume();
        }
        else
        {
            load.pause();
        }
        return load.stats();
    }
}
