package io.xio.engine;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The engine's shape: an API that leaks nothing internal, and transports that plug in through the SPI only. */
class ArchitectureTest
{
    private static final JavaClasses ENGINE = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio.engine");

    @Test
    void theApiExposesNoInternalType()
    {
        EngineArchitecture.theApiExposesNoInternalType().check(ENGINE);
    }

    @Test
    void transportsUseTheSpiNotTheSessionLayerOrTheContexts()
    {
        noClasses().that().resideInAnyPackage("io.xio.engine.transport..")
            .should().dependOnClassesThat().resideInAnyPackage("io.xio.engine.session..", "io.xio.engine.context..")
            .check(ENGINE);
    }

    @Test
    void theSpiDependsOnNoBuiltInTransport()
    {
        noClasses().that().resideInAnyPackage("io.xio.engine.transport", "io.xio.engine.transport.stream",
                "io.xio.engine.memory")
            .should().dependOnClassesThat().resideInAnyPackage("io.xio.engine.transport.tcp..",
                "io.xio.engine.transport.shm..", "io.xio.engine.transport.local..", "io.xio.engine.transport.tls..")
            .check(ENGINE);
    }

    @Test
    void theEngineEntryPointNamesNoTransport()
    {
        noClasses().that().haveSimpleName("XioEngine").should().dependOnClassesThat()
            .resideInAnyPackage("io.xio.engine.transport.tcp..", "io.xio.engine.transport.shm..",
                "io.xio.engine.transport.local..", "io.xio.engine.transport.tls..")
            .check(ENGINE);
    }
}
