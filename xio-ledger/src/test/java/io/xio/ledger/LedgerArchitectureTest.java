package io.xio.ledger;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ledger's shape: a layer on the engine's application API (and the helpers on it), nothing below it, as the
 * cluster client is; and no Spring (its pom has none, and the Spring layer builds on it, not the other way).
 */
class LedgerArchitectureTest
{
    private static final JavaClasses LEDGER = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio.ledger");

    @Test
    void theLedgerUsesOnlyTheEnginesApiAndSupportPackages()
    {
        usesOnlyTheApiAndSupport().check(LEDGER);
    }

    @Test
    void aLedgerClassReachingTheEnginesWireProtocolBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(DeliberateProtocolReach.class);
        assertThatThrownBy(() -> usesOnlyTheApiAndSupport().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateProtocolReach");
    }

    private static ArchRule usesOnlyTheApiAndSupport()
    {
        final DescribedPredicate<JavaClass> beyondTheApi = resideInAPackage("io.xio.engine..")
            .and(DescribedPredicate.not(resideInAnyPackage("io.xio.engine", "io.xio.engine.support..")))
            .as("are in an engine package other than io.xio.engine and io.xio.engine.support..");
        return noClasses().that().resideInAPackage("io.xio.ledger..").should().dependOnClassesThat(beyondTheApi);
    }
}
