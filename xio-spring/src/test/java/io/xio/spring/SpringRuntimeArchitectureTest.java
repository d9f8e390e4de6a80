package io.xio.spring;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.xio.spring.client.DeliberateBootUse;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Spring runtime stands on Spring Framework alone: what needs Spring Boot (its property binding, SSL bundles,
 * availability, failure analyzers) lives in the auto-configuration, which maps Boot's side into the runtime's plain
 * settings. An application that uses the runtime without Boot gets no Boot class through it.
 */
class SpringRuntimeArchitectureTest
{
    private static final JavaClasses RUNTIME = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio.spring");

    @Test
    void theRuntimeDependsOnNoSpringBootClass()
    {
        runtimeWithoutBoot().check(RUNTIME);
    }

    @Test
    void aRuntimeClassUsingSpringBootBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(DeliberateBootUse.class);
        assertThatThrownBy(() -> runtimeWithoutBoot().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateBootUse");
    }

    private static ArchRule runtimeWithoutBoot()
    {
        return noClasses().that().resideInAPackage("io.xio.spring..")
            .and().resideOutsideOfPackage("io.xio.spring.autoconfigure..")
            .should().dependOnClassesThat().resideInAPackage("org.springframework.boot..");
    }
}
