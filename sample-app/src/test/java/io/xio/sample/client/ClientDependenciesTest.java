package io.xio.sample.client;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The sample's sides meet only in the api package: a client needs the interface and its types, never the server's
 * classes or xio's client internals (its clients are {@code @XioClient} beans, not proxies built by hand). What it
 * may use of xio's Spring layer is the call interceptors' API ({@code io.xio.spring.call}), with which it gives a
 * payment its order's idempotency key.
 */
class ClientDependenciesTest
{
    /**
     * The sample's own classes: not those Spring's ahead-of-time processing generated into the same output
     * ({@code BlobsClient__BeanDefinitions} builds the client's factory bean, as it should), which a build that ran
     * {@code spring-boot:process-aot} before leaves there.
     */
    private static final JavaClasses SAMPLE = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("__") && !location.contains("$$SpringCGLIB$$"))
        .importPackages("io.xio.sample");

    @Test
    void theClientUsesNoServerClass()
    {
        noClasses().that().resideInAPackage("io.xio.sample.client..")
            .should().dependOnClassesThat().resideInAPackage("io.xio.sample.server..")
            .check(SAMPLE);
    }

    @Test
    void theClientBuildsNoProxyByHand()
    {
        noClasses().that().resideInAPackage("io.xio.sample.client..")
            .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.xio.spring..")
                .and(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("io.xio.spring.call.."))))
            .check(SAMPLE);
    }

    @Test
    void theApiDependsOnNeitherSide()
    {
        noClasses().that().resideInAPackage("io.xio.sample.api..")
            .should().dependOnClassesThat().resideInAnyPackage("io.xio.sample.server..", "io.xio.sample.client..",
                "io.xio.spring..")
            .check(SAMPLE);
    }
}
