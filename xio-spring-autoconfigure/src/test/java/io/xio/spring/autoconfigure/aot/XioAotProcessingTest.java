package io.xio.spring.autoconfigure.aot;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** AOT processing of an application with an xio client and service: the hints, and the context it generates. */
public class XioAotProcessingTest
{
    /** The shared API. */
    public interface Parcels
    {
        record Parcel(String trackingCode, int grams)
        {
        }

        record Query(String owner)
        {
        }

        Parcel find(String code) throws MissingParcelException;

        List<Parcel> all(Query query);

        int store(String code, ByteBuffer label);
    }

    /** Declared by {@link Parcels#find}: rebuilt by the client through its message constructor. */
    public static class MissingParcelException extends Exception
    {
        private static final long serialVersionUID = 1L;

        public MissingParcelException(final String message)
        {
            super(message);
        }
    }

    @XioClient("parcels")
    public interface ParcelsClient extends Parcels
    {
    }

    @XioService("parcels")
    public static class ParcelsService implements Parcels
    {
        @Override
        public Parcel find(final String code) throws MissingParcelException
        {
            if (code.isEmpty())
            {
                throw new MissingParcelException("no code");
            }
            return new Parcel(code, 250);
        }

        @Override
        public List<Parcel> all(final Query query)
        {
            if (query.owner().isEmpty())
            {
                throw new IllegalStateException("no owner");
            }
            return List.of(new Parcel(query.owner() + "-1", 1));
        }

        @Override
        public int store(final String code, final ByteBuffer label)
        {
            return label.remaining();
        }

        @XioExceptionHandler
        XioError noOwner(final IllegalStateException ex)
        {
            return XioError.of(XioErrorCode.INVALID_ARGUMENT, "parcels: " + ex.getMessage());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    static class ParcelsApplication
    {
    }

    private final String name = "aot-" + UUID.randomUUID();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
        .withUserConfiguration(ParcelsApplication.class)
        .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=local://" + name,
            "xio.clients.parcels.uri=local://" + name + "/parcels");

    @Test
    void registersProxyReflectionAndBindingHintsForClientsAndServices()
    {
        process((generation, initializer) ->
        {
            final RuntimeHints hints = generation.getRuntimeHints();
            assertThat(RuntimeHintsPredicates.proxies().forInterfaces(ParcelsClient.class)).accepts(hints);
            assertThat(RuntimeHintsPredicates.proxies().forInterfaces(ParcelsService.class)).rejects(hints);
            // The exported interface's methods, invoked on the service and read by the client.
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Parcels.class, "find")).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ParcelsClient.class, "all"))
                .accepts(hints);
            // Jackson binding for a result type, a parameter type and a generic result's element type.
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Parcels.Parcel.class, "trackingCode"))
                .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Parcels.Query.class, "owner"))
                .accepts(hints);
            // A data segment is no Jackson type.
            assertThat(RuntimeHintsPredicates.reflection().onType(ByteBuffer.class)).rejects(hints);
            assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                MissingParcelException.class.getConstructor(String.class))).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ParcelsService.class, "noOwner"))
                .accepts(hints);
            // The module's own: the JDK exceptions a client rebuilds from any server.
            assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                IllegalArgumentException.class.getConstructor(String.class))).accepts(hints);
        });
    }

    @Test
    @CompileWithForkedClassLoader // the generated code reaches this test's package-private types
    void theGeneratedContextServesAndCallsWithoutTheBeanDefinitionsItWasMadeFrom()
    {
        process((generation, initializer) -> TestCompiler.forSystem().with(generation).compile(compiled ->
        {
            try (GenericApplicationContext context = new GenericApplicationContext())
            {
                // The environment is the application's at run time; only the bean definitions were generated.
                runnerEnvironment(context);
                compiled.getInstance(ApplicationContextInitializer.class, initializer.reflectionName())
                    .initialize(context);
                context.refresh();
                final ParcelsClient parcels = context.getBean(ParcelsClient.class);
                assertThatCode(() -> calls(parcels)).doesNotThrowAnyException();
                assertThatThrownBy(() -> parcels.find("")).isExactlyInstanceOf(MissingParcelException.class)
                    .hasMessage("no code");
                assertThatThrownBy(() -> parcels.all(new Parcels.Query(""))).hasMessageContaining("parcels: no owner");
            }
        }));
    }

    private static void calls(final ParcelsClient parcels) throws MissingParcelException
    {
        assertThat(parcels.find("p-7")).isEqualTo(new Parcels.Parcel("p-7", 250));
        assertThat(parcels.all(new Parcels.Query("ann"))).containsExactly(new Parcels.Parcel("ann-1", 1));
        assertThat(parcels.store("p-7", ByteBuffer.allocate(12))).isEqualTo(12);
    }

    private void runnerEnvironment(final GenericApplicationContext context)
    {
        org.springframework.test.context.support.TestPropertySourceUtils.addInlinedPropertiesToEnvironment(context,
            "xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=local://" + name + "-run",
            "xio.clients.parcels.uri=local://" + name + "-run/parcels");
    }

    /** Runs AOT processing over the application and hands over what it generated and its initializer's name. */
    private void process(final GeneratedCheck check)
    {
        runner.prepare(context ->
        {
            final TestGenerationContext generation = new TestGenerationContext();
            final ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(
                (GenericApplicationContext)context.getSourceApplicationContext(), generation);
            generation.writeGeneratedContent();
            check.accept(generation, initializer);
        });
    }

    /** A check of what AOT processing generated. */
    private interface GeneratedCheck
    {
        void accept(TestGenerationContext generation, ClassName initializer) throws Exception;
    }
}
