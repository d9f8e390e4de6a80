package io.xio.engine;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void theFlowViewOfStreamsIsBuiltOnTheApiAloneAndNothingInTheEngineNeedsIt()
    {
        // io.xio.engine.flow is a layer on top, as code outside the engine would write it: no session, context,
        // protocol or transport class, and the engine runs without it.
        EngineArchitecture.onlyTheApiIsUsedBy("io.xio.engine.flow..").check(ENGINE);
        noClasses().that().resideOutsideOfPackage("io.xio.engine.flow..")
            .should().dependOnClassesThat().resideInAPackage("io.xio.engine.flow..").check(ENGINE);
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
    void onlyTheEngineFacadeNamesTheSessionLayer()
    {
        // The session layer is the top of the engine's internals: the API types it makes and settles (Message,
        // XioFuture, Metadata) bind what it needs of them from its side (Futures, Messages, CallContext), so neither
        // the API package nor any package the sessions build on depends on it, and no package cycle runs through it
        // but by the facade that wires the engine.
        onlyTheFacadeNamesTheSessionLayer().check(ENGINE);
    }

    @Test
    void anApiClassReachingIntoTheSessionLayerBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(DeliberateSessionReach.class,
            io.xio.engine.session.LeakTracker.class);
        assertThatThrownBy(() -> onlyTheFacadeNamesTheSessionLayer().check(deliberate))
            .isInstanceOf(AssertionError.class).hasMessageContaining("DeliberateSessionReach");
    }

    @Test
    void everyClassOfTheEngineFacadeStillNamesTheSessionLayer()
    {
        // So the facade is no way round the rule above: a class that no longer needs the session layer leaves it.
        for (final String name : ENGINE_FACADE)
        {
            classes().that().haveSimpleName(name).and().resideInAPackage("io.xio.engine")
                .should().dependOnClassesThat().resideInAPackage("io.xio.engine.session").check(ENGINE);
        }
    }

    private static ArchRule onlyTheFacadeNamesTheSessionLayer()
    {
        return noClasses().that().resideOutsideOfPackage("io.xio.engine.session..").and(notTheEngineFacade())
            .should().dependOnClassesThat().resideInAPackage("io.xio.engine.session..");
    }

    /** The engine's entry point and the package-private parts it is built of, which make and wire the internals. */
    private static final Set<String> ENGINE_FACADE = Set.of("XioEngine", "EngineContexts", "EnginePortals",
        "ContextSupervisor");

    private static DescribedPredicate<JavaClass> notTheEngineFacade()
    {
        return DescribedPredicate.describe("not the engine facade", type -> !(type.getPackageName()
            .equals("io.xio.engine") && ENGINE_FACADE.contains(type.getName().substring("io.xio.engine.".length())
            .replaceAll("\\$.*", ""))));
    }

    @Test
    void theSessionsPartsTakeWhatTheyNeedInTheirConstructorsNotFromTheSessionFacade()
    {
        // A session's parts (its lanes and what they own, its drain, calls, answers, range cancels, identity, life)
        // get a narrow context (LaneHost, LaneContext, each part's Host); only the registry that makes, holds and
        // expires sessions knows the facade.
        partsDoNotReachTheFacade().check(ENGINE);
    }

    @Test
    void aPartReachingThroughTheSessionFacadeBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(
            io.xio.engine.session.DeliberateFacadeReach.class, io.xio.engine.session.SessionImpl.class);
        assertThatThrownBy(() -> partsDoNotReachTheFacade().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateFacadeReach");
    }

    private static ArchRule partsDoNotReachTheFacade()
    {
        return noClasses().that().resideInAPackage("io.xio.engine.session..").and(notTheSessionRegistry())
            .should().dependOnClassesThat().haveSimpleName("SessionImpl");
    }

    @Test
    void theSessionSubpackagesFormNoCycle()
    {
        // admission <- connection <- call <- handshake: where a lower part must reach a higher one it owns a narrow
        // interface the higher implements (CallAdmission.Drain, CarriedLane, ServerSetups, Lane.Handshake).
        // "io.xio.engine.session.(*).." makes a slice of each subpackage but none of the session package itself:
        // the facade, the engine registry and the API handles there are above them all yet reached back (EngineCore
        // by connections and the server handshake, SessionImpl by Peers and the server handshake, Futures, Messages
        // and LeakTracker by the calls), so the rule does not see those cycles.
        subpackagesFreeOfCycles().check(ENGINE);
    }

    @Test
    void aCycleBetweenSessionSubpackagesBreaksTheRule()
    {
        // DeliberateUpwardReach (admission) names a lane; ServerCallContext (call) names the deduplication window
        final JavaClasses deliberate = new ClassFileImporter().importClasses(
            io.xio.engine.session.admission.DeliberateUpwardReach.class, io.xio.engine.session.call.Lane.class,
            io.xio.engine.session.call.ServerCallContext.class, io.xio.engine.session.admission.DedupWindow.class);
        assertThatThrownBy(() -> subpackagesFreeOfCycles().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateUpwardReach");
    }

    private static ArchRule subpackagesFreeOfCycles()
    {
        return slices().matching("io.xio.engine.session.(*)..").should().beFreeOfCycles();
    }

    @Test
    void admissionDependsOnNoOtherPartOfTheSessionLayer()
    {
        // the leaf: what may be sent, held and accepted is decided from counts and limits, never from a lane, a
        // connection or the session (the drain it asks is its own CallAdmission.Drain)
        admissionIsALeaf().check(ENGINE);
    }

    @Test
    void anAdmissionPartReachingUpBreaksTheRule()
    {
        final JavaClasses deliberate = new ClassFileImporter().importClasses(
            io.xio.engine.session.admission.DeliberateUpwardReach.class, io.xio.engine.session.call.Lane.class);
        assertThatThrownBy(() -> admissionIsALeaf().check(deliberate)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("DeliberateUpwardReach");
    }

    private static ArchRule admissionIsALeaf()
    {
        return noClasses().that().resideInAPackage("io.xio.engine.session.admission..")
            .should().dependOnClassesThat(resideInAPackage("io.xio.engine.session..")
                .and(DescribedPredicate.not(resideInAPackage("io.xio.engine.session.admission.."))));
    }

    @Test
    void everyClassOfTheSessionRegistryStillHoldsSessions()
    {
        // So the registry is no way round the rule above: a class that no longer needs the facade leaves it.
        for (final String name : SESSION_REGISTRY)
        {
            if (!name.equals("SessionImpl"))
            {
                classes().that().haveSimpleName(name).and().resideInAPackage("io.xio.engine.session..")
                    .should().dependOnClassesThat().haveSimpleName("SessionImpl").check(ENGINE);
            }
        }
    }

    /**
     * The session facade, its host (the adapter that answers each part's narrow host from it), and the registry that
     * makes, holds and expires sessions: the engine's core (its sessions by id), each context's peers (the lingering
     * ones), the engine's drain (every server session), the server handshake (a session accepted or attached to).
     */
    private static final Set<String> SESSION_REGISTRY = Set.of("SessionImpl", "SessionHost", "EngineCore",
        "EngineDrain", "Peers", "ServerHandshake");

    private static DescribedPredicate<JavaClass> notTheSessionRegistry()
    {
        return DescribedPredicate.describe("not the session registry",
            type -> !SESSION_REGISTRY.contains(type.getName().substring(type.getPackageName().length() + 1)
                .replaceAll("\\$.*", "")));
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
