package io.xio.spring.autoconfigure;

import io.xio.annotation.XioMethod;
import io.xio.annotation.XioService;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.RemoteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.callInJson;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An exactly-once method whose answer the server's codec encodes but cannot decode back (a result declared as an
 * interface, without type information): its call rolls back and fails, rather than committing an answer that every
 * replay of its key would fail to read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExactlyOnceStoredAnswerTest
{
    /** A result Jackson writes through its getter, but cannot make again: it is an interface. */
    public interface Shape
    {
        int getSide();
    }

    /** The shape the service answers with. */
    public record Square(int side) implements Shape
    {
        @Override
        public int getSide()
        {
            return side;
        }
    }

    /** Draws a shape, which writes a row. */
    public interface Shapes
    {
        @XioMethod(exactlyOnce = true)
        Shape draw(int side);
    }

    @XioService("transfers")
    public static class DrawnShapes implements Shapes
    {
        private final JdbcTemplate jdbc;
        private final AtomicInteger runs = new AtomicInteger();

        DrawnShapes(final JdbcTemplate jdbc)
        {
            this.jdbc = jdbc;
        }

        @Override
        public Shape draw(final int side)
        {
            runs.incrementAndGet();
            jdbc.update("INSERT INTO shapes (side) VALUES (?)", side);
            return new Square(side);
        }

        int runs()
        {
            return runs.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ShapesApplication
    {
        @Bean
        DrawnShapes shapes(final JdbcTemplate jdbc)
        {
            jdbc.execute("CREATE TABLE shapes (side INT NOT NULL)");
            return new DrawnShapes(jdbc);
        }
    }

    @Test
    void aCallWhoseAnswerWouldNotDecodeBackRollsBackAndFailsInsteadOfFailingEveryReplay()
    {
        server(ShapesApplication.class).run(server ->
        {
            assertThat(server).hasNotFailed();
            final JdbcTemplate jdbc = server.getBean(JdbcTemplate.class);
            for (int attempt = 1; attempt <= 2; attempt++)
            {
                final Metadata key = new Metadata().add(IdempotencyKeys.METADATA_KEY, "shape-1");
                assertThatThrownBy(() -> callInJson(server, "draw(int)", "[3]", key))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RemoteException.class)
                    .matches(remote -> !((RemoteException)remote).isBackPressure(), "an answer, not back-pressure");
                assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM shapes", Integer.class)).isZero();
                assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM xio_execution_ledger", Integer.class))
                    .as("nothing stored that a replay could not read").isZero();
            }
            assertThat(server.getBean(DrawnShapes.class).runs()).as("each attempt ran, none replayed").isEqualTo(2);
        });
    }
}
