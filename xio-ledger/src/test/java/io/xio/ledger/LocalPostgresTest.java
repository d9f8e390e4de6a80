package io.xio.ledger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** {@link LocalPostgres} and {@link BoundedCommand}: what they leave behind, and who may reach the server. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LocalPostgresTest
{
    @Test
    @ExtendWith(LocalPostgresExtension.class)
    void theServerTakesItsUserOnlyWithThePassword(final LocalPostgres postgres) throws SQLException
    {
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/" +
            LocalPostgres.DATABASE + "?user=" + LocalPostgres.USER).close()).isInstanceOf(SQLException.class);
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl()))
        {
            assertThat(connection.isValid(5)).isTrue();
        }
    }

    @Test
    @ExtendWith(LocalPostgresExtension.class)
    void aServerTradesDurabilityForSpeedUnlessAskedToBeDurable(final LocalPostgres shared) throws Exception
    {
        assertThat(durabilitySettings(shared)).isEqualTo(List.of("off", "off", "off"));
        try (LocalPostgres durable = LocalPostgres.start(LocalPostgres.binaries(), LocalPostgres.Durability.ON))
        {
            assertThat(durabilitySettings(durable)).isEqualTo(List.of("on", "on", "on"));
        }
    }

    @Test
    void rootIsTheEffectiveUidNotWhatUserNameSays() throws Exception
    {
        final boolean root = "0".equals(BoundedCommand.run(List.of("id", "-u"), Map.of(), Duration.ofSeconds(10))
            .output().trim());
        final String userName = System.getProperty("user.name");
        System.setProperty("user.name", root ? "nobody" : "root");
        try
        {
            assertThat(LocalPostgres.runsAsRoot()).isEqualTo(root);
        }
        finally
        {
            System.setProperty("user.name", userName);
        }
    }

    @Test
    void aCommandPastItsLimitIsKilledWithWhatItStarted(@TempDir final Path directory) throws Exception
    {
        final Path pidFile = directory.resolve("child.pid");
        assertThatThrownBy(() -> BoundedCommand.run(
            List.of("sh", "-c", "sleep 600 & echo $! > " + pidFile + "; wait"), Map.of(), Duration.ofSeconds(1)))
            .isInstanceOf(IOException.class).hasMessageContaining("still ran after");

        final long child = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim());
        await().atMost(Duration.ofSeconds(10)).until(() ->
            ProcessHandle.of(child).map(process -> !process.isAlive()).orElse(true));
    }

    @Test
    @ExtendWith(LocalPostgresExtension.class)
    void aServerWhoseJvmIsGoneIsStoppedAndDeletedByTheNextStart(final LocalPostgres shared) throws Exception
    {
        final LocalPostgres left = LocalPostgres.start();
        try
        {
            final Path directory = left.directory();
            final ProcessHandle postmaster = postmaster(directory);
            // As a JVM killed outright leaves it: the owner a process that is gone (this pid, started at another time).
            Files.writeString(directory.resolve("owner"), ProcessHandle.current().pid() + " " + Instant.EPOCH,
                StandardCharsets.UTF_8);

            LocalPostgres.stopLeftovers(LocalPostgres.binaries(), LocalPostgres.runsAsRoot());

            await().atMost(Duration.ofSeconds(30)).until(() -> !postmaster.isAlive());
            assertThat(directory).doesNotExist();
            try (Connection connection = DriverManager.getConnection(shared.jdbcUrl()))
            {
                assertThat(connection.isValid(5)).as("the run's own server is left alone").isTrue();
            }
        }
        finally
        {
            left.close();
        }
    }

    @Test
    @ExtendWith(LocalPostgresExtension.class)
    void aServerWhoseDirectoryIsGoneIsStoppedByTheNextStart(final LocalPostgres shared) throws Exception
    {
        final LocalPostgres left = LocalPostgres.start();
        try
        {
            final Path directory = left.directory();
            final ProcessHandle postmaster = postmaster(directory);
            LocalPostgres.deleteTree(directory, LocalPostgres.runsAsRoot());

            LocalPostgres.stopLeftovers(LocalPostgres.binaries(), LocalPostgres.runsAsRoot());

            await().atMost(Duration.ofSeconds(30)).until(() -> !postmaster.isAlive());
            try (Connection connection = DriverManager.getConnection(shared.jdbcUrl()))
            {
                assertThat(connection.isValid(5)).as("the run's own server is left alone").isTrue();
            }
        }
        finally
        {
            left.close();
        }
    }

    /** fsync, synchronous_commit and full_page_writes as the server reports them. */
    private static List<String> durabilitySettings(final LocalPostgres server) throws SQLException
    {
        final List<String> settings = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl());
            Statement statement = connection.createStatement())
        {
            for (final String name : List.of("fsync", "synchronous_commit", "full_page_writes"))
            {
                try (ResultSet row = statement.executeQuery("SHOW " + name))
                {
                    row.next();
                    settings.add(row.getString(1));
                }
            }
        }
        return settings;
    }

    /** The server's postmaster, from the first line of its pid file. */
    private static ProcessHandle postmaster(final Path directory) throws IOException
    {
        final String pid = Files.readAllLines(directory.resolve("data").resolve("postmaster.pid")).get(0).trim();
        return ProcessHandle.of(Long.parseLong(pid)).orElseThrow();
    }
}
