package io.xio.cluster;

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
 * The cluster client's shape: a layer on the engine's application API (and the helpers on it), nothing below it,
 * and parts that do not reach through the service client's facade.
 */
class ClusterArchitectureTest
{
    private static final JavaClasses CLUSTER = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio.cluster");

    @Test
    void theClusterUsesOnlyTheEnginesApiAndSupportPackages()
    {
        // Not even the engine's other exported packages (the transport SPI, the buffers): a client of the engine
        // needs no more than an application does, so the engine's internals can change under it freely.
        usesOnlyTheApiAndSupport().check(CLUSTER);
    }

    @Test
    void aClusterClassReachingTheTransportSpiBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(DeliberateSpiReach.class);
        assertThatThrownBy(() -> usesOnlyTheApiAndSupport().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateSpiReach");
    }

    private static ArchRule usesOnlyTheApiAndSupport()
    {
        final DescribedPredicate<JavaClass> beyondTheApi = resideInAPackage("io.xio.engine..")
            .and(DescribedPredicate.not(resideInAnyPackage("io.xio.engine", "io.xio.engine.support..")))
            .as("are in an engine package other than io.xio.engine and io.xio.engine.support..");
        return noClasses().that().resideInAPackage("io.xio.cluster..").should().dependOnClassesThat(beyondTheApi);
    }

    @Test
    void theServiceClientsPartsTakeWhatTheyNeedInTheirConstructorsNotFromTheFacade()
    {
        // Membership, the connector, the timers, the picker and the calls get a narrow context; only the entry
        // point's builder names the facade, to build it.
        partsDoNotReachTheFacade().check(CLUSTER);
    }

    @Test
    void aPartReachingThroughTheServiceClientsFacadeBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(DeliberateClientFacadeReach.class,
            ServiceClientImpl.class);
        assertThatThrownBy(() -> partsDoNotReachTheFacade().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateClientFacadeReach");
    }

    private static ArchRule partsDoNotReachTheFacade()
    {
        return noClasses().that().resideInAPackage("io.xio.cluster").and(DescribedPredicate.describe(
                "neither the service client's facade nor its builder", (JavaClass type) ->
                !type.getName().startsWith("io.xio.cluster.ServiceClient$") &&
                !type.getName().startsWith("io.xio.cluster.ServiceClientImpl")))
            .should().dependOnClassesThat().haveSimpleName("ServiceClientImpl");
    }
}
