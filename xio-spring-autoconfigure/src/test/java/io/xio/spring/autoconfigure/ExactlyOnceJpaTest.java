package io.xio.spring.autoconfigure;

import io.xio.annotation.XioMethod;
import io.xio.annotation.XioService;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.RemoteException;
import io.xio.spring.autoconfigure.sample.exactlyonce.jpa.Deposit;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.callInJson;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An exactly-once method that writes an entity through JPA, in an application with Boot's Hibernate auto-configuration
 * and so a {@link JpaTransactionManager}: the entity and the ledger's entry commit together (a retry with the key
 * replays, with no second entity), a method that fails after {@code persist} leaves neither, and the entity is
 * flushed before the ledger records the answer, so a constraint broken at that flush fails the call with its error
 * (not as an unsettled call whose commit failed) and records nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExactlyOnceJpaTest
{
    private static final String COUNT_ENTRIES = "SELECT COUNT(*) FROM xio_execution_ledger";

    /** Deposits kept as entities. */
    public interface Deposits
    {
        @XioMethod(exactlyOnce = true)
        String deposit(String reference);

        @XioMethod(exactlyOnce = true)
        String depositThenFail(String reference);
    }

    /** Persists a deposit through the shared {@link EntityManager}, in the JPA transaction its annotation joins. */
    @XioService("transfers")
    public static class EntityDeposits implements Deposits
    {
        private final AtomicInteger executions = new AtomicInteger();
        private final EntityManager entities;

        EntityDeposits(final EntityManager entities)
        {
            this.entities = entities;
        }

        @Override
        @Transactional
        public String deposit(final String reference)
        {
            executions.incrementAndGet();
            final Deposit deposit = new Deposit(UUID.randomUUID().toString(), reference);
            entities.persist(deposit);
            return deposit.id();
        }

        @Override
        @Transactional
        public String depositThenFail(final String reference)
        {
            executions.incrementAndGet();
            entities.persist(new Deposit(UUID.randomUUID().toString(), reference));
            throw new IllegalStateException("failed after persisting " + reference);
        }

        /** How often a method ran (read through the transactional proxy, which has no state). */
        public int executions()
        {
            return executions.get();
        }
    }

    /** The deposits, with {@link Deposit}'s package the one Boot scans for entities. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = Deposit.class)
    static class EntityApplication
    {
        @Bean
        EntityDeposits deposits(final EntityManagerFactory entityManagerFactory)
        {
            return new EntityDeposits(SharedEntityManagerCreator.createSharedEntityManager(entityManagerFactory));
        }
    }

    private static ApplicationContextRunner jpaServer()
    {
        return server(EntityApplication.class)
            .withConfiguration(AutoConfigurations.of(HibernateJpaAutoConfiguration.class));
    }

    @Test
    void theEntityAndTheLedgerEntryCommitTogetherAndARetryReplaysWithoutASecondEntity()
    {
        jpaServer().run(server ->
        {
            assertThat(server).hasNotFailed();
            assertThat(server.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
            final String id = callInJson(server, "deposit(String)", "[\"r1\"]", key("deposit-1"));
            assertThat(deposits(server, "r1")).isEqualTo(1);
            assertThat(jdbc(server).queryForObject(COUNT_ENTRIES, Integer.class)).isEqualTo(1);

            assertThat(callInJson(server, "deposit(String)", "[\"r1\"]", retry("deposit-1")))
                .as("the stored answer: the first entity's id").isEqualTo(id);
            assertThat(deposits(server, "r1")).isEqualTo(1);
            assertThat(server.getBean(EntityDeposits.class).executions()).isEqualTo(1);
            assertThat(jdbc(server).queryForObject(COUNT_ENTRIES, Integer.class)).isEqualTo(1);
        });
    }

    @Test
    void aMethodFailingAfterPersistLeavesNeitherTheEntityNorTheLedgerEntry()
    {
        jpaServer().run(server ->
        {
            assertThat(server).hasNotFailed();
            assertThatThrownBy(() -> callInJson(server, "depositThenFail(String)", "[\"r2\"]", key("deposit-2")))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RemoteException.class)
                .matches(remote -> !((RemoteException)remote).isBackPressure(), "an answer, not back-pressure");
            assertThat(deposits(server, "r2")).as("rolled back with the entry: one transaction").isZero();
            assertThat(jdbc(server).queryForObject(COUNT_ENTRIES, Integer.class)).isZero();
        });
    }

    @Test
    void aConstraintBrokenWhenTheEntityIsFlushedFailsTheCallAndRecordsNothing()
    {
        jpaServer().run(server ->
        {
            assertThat(server).hasNotFailed();
            callInJson(server, "deposit(String)", "[\"r3\"]", key("deposit-3"));
            for (final Metadata attempt : List.of(key("deposit-4"), retry("deposit-4")))
            {
                // Another key, the same unique reference: Hibernate inserts only when the transaction is flushed.
                assertThatThrownBy(() -> callInJson(server, "deposit(String)", "[\"r3\"]", attempt))
                    .as(attempt.toString()).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(RemoteException.class)
                    .matches(remote -> !((RemoteException)remote).isBackPressure(),
                        "the flush's failure answered, not a commit that failed after the ledger's writes");
            }
            assertThat(deposits(server, "r3")).isEqualTo(1);
            assertThat(jdbc(server).queryForObject(COUNT_ENTRIES, Integer.class)).as("the first call's only")
                .isEqualTo(1);
            assertThat(server.getBean(EntityDeposits.class).executions())
                .as("the failed key ran again: nothing was stored for it").isEqualTo(3);
        });
    }

    private static JdbcTemplate jdbc(final ApplicationContext server)
    {
        return server.getBean(JdbcTemplate.class);
    }

    private static int deposits(final ApplicationContext server, final String reference)
    {
        return jdbc(server).queryForObject("SELECT COUNT(*) FROM jpa_deposits WHERE reference = ?", Integer.class,
            reference);
    }

    private static Metadata key(final String key)
    {
        return new Metadata().add(IdempotencyKeys.METADATA_KEY, key);
    }

    /**
     * A retry of {@code key}'s call, as a client sends it: claimed before it runs, so a committed key replays (a
     * first attempt runs first and records after, and would break the reference's constraint before seeing the key).
     */
    private static Metadata retry(final String key)
    {
        return IdempotencyKeys.forRetry(key(key), 1);
    }
}
