package io.xio.sample.cluster;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The one-command ZooKeeper of docs/operations.md, in its own process: it serves, and removes its data on stop. */
class LocalZooKeeperTest
{
    private static final Pattern SERVING = Pattern.compile("LocalZooKeeper: serving on 127\\.0\\.0\\.1:(\\d+) " +
        "\\(data in (\\S+), deleted on exit\\)");

    @Test
    void servesClientsOnItsPortAndDeletesItsDataOnSigterm() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), LocalZooKeeper.class.getName(), Integer.toString(port))
            .redirectErrorStream(true).start();
        try
        {
            final Path data = awaitServing(process, port);
            assertThat(data).isDirectory();
            try (CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:" + port, 5000, 5000,
                new RetryOneTime(100)))
            {
                client.start();
                assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
                client.create().forPath("/xio-sample", "here".getBytes(StandardCharsets.UTF_8));
                assertThat(new String(client.getData().forPath("/xio-sample"), StandardCharsets.UTF_8))
                    .isEqualTo("here");
            }
            process.destroy(); // SIGTERM, as Ctrl-C or docker stop
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.exists(data)).as("data directory %s after exit", data).isFalse();
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    private static Path awaitServing(final Process process, final int port) throws Exception
    {
        final BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8));
        final StringBuilder seen = new StringBuilder();
        String line;
        while ((line = lines.readLine()) != null)
        {
            seen.append(line).append('\n');
            final Matcher matcher = SERVING.matcher(line);
            if (matcher.find())
            {
                assertThat(Integer.parseInt(matcher.group(1))).isEqualTo(port);
                // Keep reading so the child never blocks on a full pipe.
                final Thread drain = new Thread(() -> lines.lines().forEach(ignored -> { }), "zk-output");
                drain.setDaemon(true);
                drain.start();
                return Path.of(matcher.group(2));
            }
        }
        throw new AssertionError("LocalZooKeeper exited without serving:\n" + seen);
    }
}
