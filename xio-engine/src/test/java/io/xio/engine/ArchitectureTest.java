package io.xio.engine;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
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
    void theSessionsPartsTakeWhatTheyNeedInTheirConstructorsNotFromTheSessionFacade()
    {
        // The parts split off the session (its drain, calls, answers, range cancels, identity, life) get a narrow
        // context; the classes listed here still reach through the facade, and the list only shrinks.
        noClasses().that().resideInAPackage("io.xio.engine.session").and(notReachingThroughTheFacadeYet())
            .should().dependOnClassesThat().haveSimpleName("SessionImpl")
            .check(ENGINE);
    }

    @Test
    void everyClassAllowedToReachThroughTheSessionFacadeStillDoes()
    {
        // So the list above only shrinks: a class that no longer needs the facade leaves it.
        for (final String name : STILL_REACHING)
        {
            if (!name.equals("SessionImpl"))
            {
                classes().that().haveSimpleName(name).and().resideInAPackage("io.xio.engine.session")
                    .should().dependOnClassesThat().haveSimpleName("SessionImpl").check(ENGINE);
            }
        }
    }

    /** The session facade, and the classes of the session layer that still take what they need from it. */
    private static final Set<String> STILL_REACHING = Set.of("SessionImpl", "ClientHandshake", "Connection",
        "EngineCore", "EngineDrain", "Lane", "OutboundCalls", "Peers", "ServerHandshake");

    private static DescribedPredicate<JavaClass> notReachingThroughTheFacadeYet()
    {
        return DescribedPredicate.describe("not yet split from the facade",
            type -> !STILL_REACHING.contains(type.getName().substring(type.getPackageName().length() + 1)
                .replaceAll("\\$.*", "")));
    }

    @Test
    void theServiceClientsPartsTakeWhatTheyNeedInTheirConstructorsNotFromTheFacade()
    {
        // Membership, the connector, the timers, the picker and the calls get a narrow context; only the entry
        // point's builder names the facade, to build it.
        noClasses().that().resideInAPackage("io.xio.engine.cluster").and(DescribedPredicate.describe(
                "neither the service client's facade nor its builder", (JavaClass type) ->
                !type.getName().startsWith("io.xio.engine.cluster.ServiceClient$") &&
                !type.getName().startsWith("io.xio.engine.cluster.ServiceClientImpl")))
            .should().dependOnClassesThat().haveSimpleName("ServiceClientImpl")
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
