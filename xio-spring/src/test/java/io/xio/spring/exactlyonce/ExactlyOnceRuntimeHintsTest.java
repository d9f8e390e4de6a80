package io.xio.spring.exactlyonce;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

import java.lang.reflect.Method;

import static org.assertj.core.api.Assertions.assertThat;

/** What AOT processing registers so that exactly-once methods start in a native image. */
class ExactlyOnceRuntimeHintsTest
{
    @Test
    void theRegistrarsOfAotFactoriesKeepSpringsChoiceOfATransactionManagerInvocable()
    {
        final RuntimeHints hints = new RuntimeHints();
        final ClassLoader classLoader = getClass().getClassLoader();
        AotServices.factories(classLoader).load(RuntimeHintsRegistrar.class)
            .forEach(registrar -> registrar.registerHints(hints, classLoader));

        final Method determineManager = TransactionalExactlyOnceCalls.determineTransactionManager();
        assertThat(determineManager).isNotNull().extracting(Method::getDeclaringClass)
            .isEqualTo(TransactionAspectSupport.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(determineManager)).accepts(hints);
    }

    @Test
    void anApplicationWithoutSpringsTransactionsGetsNoHint()
    {
        final RuntimeHints hints = new RuntimeHints();

        new ExactlyOnceRuntimeHints().registerHints(hints, new Hiding("org.springframework.transaction."));

        assertThat(hints.reflection().typeHints()).isEmpty();
    }

    @Test
    void anApplicationWithoutTheLedgerGetsNoHint()
    {
        final RuntimeHints hints = new RuntimeHints();

        new ExactlyOnceRuntimeHints().registerHints(hints, new Hiding("io.xio.ledger."));

        assertThat(hints.reflection().typeHints()).isEmpty();
    }

    /** A class loader without the classes of one package, as an application without that jar. */
    private static final class Hiding extends ClassLoader
    {
        private final String hidden;

        Hiding(final String hidden)
        {
            super(ExactlyOnceRuntimeHintsTest.class.getClassLoader());
            this.hidden = hidden;
        }

        @Override
        protected Class<?> loadClass(final String name, final boolean resolve) throws ClassNotFoundException
        {
            if (name.startsWith(hidden))
            {
                throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
        }
    }
}
