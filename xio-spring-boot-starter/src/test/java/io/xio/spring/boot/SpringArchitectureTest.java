package io.xio.spring.boot;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.xio.engine.EngineArchitecture;
import io.xio.spring.boot.autoconfigure.DeliberateOpenAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

import java.util.Optional;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Spring layer the starter brings (the runtime in {@code xio-spring}, its auto-configuration, actuator) reaches
 * the engine through its exported packages only: what Spring needs from the engine, the engine's API provides. Its
 * auto-configuration follows Spring Boot's own conventions. That the runtime needs no Spring Boot is
 * {@code xio-spring}'s own architecture test.
 */
class SpringArchitectureTest
{
    private static final JavaClasses SPRING = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio");

    /** An {@code @AutoConfiguration} class, or a class nested (at any depth) in one. */
    private static final DescribedPredicate<JavaClass> AUTO_CONFIGURATION_OR_NESTED_IN_ONE =
        DescribedPredicate.describe("are annotated with @AutoConfiguration or nested in such a class",
            SpringArchitectureTest::isOrIsNestedInAnAutoConfiguration);

    @Test
    void springCodeUsesOnlyTheEnginesExportedPackages()
    {
        EngineArchitecture.onlyTheApiIsUsedBy("io.xio.spring..", "io.xio.actuate..").check(SPRING);
    }

    /**
     * As Spring Boot's own: an auto-configuration class is final (it is named in {@code after}, not extended) and
     * its {@code @Bean} methods, also those of its nested configurations, are package-private, not API.
     */
    @Test
    void autoConfigurationClassesAreFinalWithPackagePrivateBeanMethods()
    {
        autoConfigurationsAreFinal().check(SPRING);
        beanMethodsOfAutoConfigurationsAreNotPublic().check(SPRING);
    }

    @Test
    void anOpenAutoConfigurationWithPublicBeanMethodsBreaksTheRules()
    {
        // The class and its nested configuration: the package holds nothing else.
        final JavaClasses deliberate = new ClassFileImporter().importPackagesOf(DeliberateOpenAutoConfiguration.class);
        assertThatThrownBy(() -> autoConfigurationsAreFinal().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateOpenAutoConfiguration");
        assertThatThrownBy(() -> beanMethodsOfAutoConfigurationsAreNotPublic().check(deliberate))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateOpenAutoConfiguration.deliberatePublicBean()")
            .hasMessageContaining("DeliberateOpenAutoConfiguration$Nested.deliberateNestedPublicBean()");
    }

    private static ArchRule autoConfigurationsAreFinal()
    {
        return classes().that().areAnnotatedWith(AutoConfiguration.class).should().haveModifier(JavaModifier.FINAL);
    }

    private static ArchRule beanMethodsOfAutoConfigurationsAreNotPublic()
    {
        return methods().that().areAnnotatedWith(Bean.class)
            .and().areDeclaredInClassesThat(resideInAPackage("..autoconfigure..")
                .and(AUTO_CONFIGURATION_OR_NESTED_IN_ONE))
            .should().notBePublic();
    }

    private static boolean isOrIsNestedInAnAutoConfiguration(final JavaClass type)
    {
        for (Optional<JavaClass> enclosing = Optional.of(type); enclosing.isPresent();
            enclosing = enclosing.get().getEnclosingClass())
        {
            if (enclosing.get().isAnnotatedWith(AutoConfiguration.class))
            {
                return true;
            }
        }
        return false;
    }
}
