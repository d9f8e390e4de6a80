package io.xio.engine;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * What of the engine is API and what is internal, as ArchUnit rules: the packages {@code module-info.java}
 * exports are the API and the transport SPI; everything else is the engine's own. The module system enforces
 * this for modular applications; these rules enforce it for the class path, where Spring apps run. Used by the
 * engine's architecture test and by the modules built on the engine.
 */
public final class EngineArchitecture
{
    /**
     * The exported packages: application API, helpers on it, the Flow view of streams, transport SPI, stream-link
     * base, buffers.
     */
    public static final List<String> EXPORTED = List.of("io.xio.engine", "io.xio.engine.support",
        "io.xio.engine.flow", "io.xio.engine.transport", "io.xio.engine.transport.stream", "io.xio.engine.memory");

    /** The engine's packages that nothing outside it may use. */
    public static final String[] INTERNAL = {"io.xio.engine.context..", "io.xio.engine.session..",
        "io.xio.engine.protocol..", "io.xio.engine.transport.tcp..", "io.xio.engine.transport.shm..",
        "io.xio.engine.transport.local..", "io.xio.engine.transport.tls.."};

    private EngineArchitecture()
    {
    }

    /** Classes in {@code packages} use the engine through its exported packages only. */
    public static ArchRule onlyTheApiIsUsedBy(final String... packages)
    {
        return noClasses().that().resideInAnyPackage(packages)
            .should().dependOnClassesThat().resideInAnyPackage(INTERNAL)
            .as("code outside the engine uses only its exported packages " + EXPORTED);
    }

    /** No public or protected member of an exported type names an internal type. */
    public static ArchRule theApiExposesNoInternalType()
    {
        return classes().that(exported()).and().arePublic().should(exposeNoInternalType())
            .as("the engine's exported types expose no internal type");
    }

    private static DescribedPredicate<JavaClass> exported()
    {
        return DescribedPredicate.describe("are in an exported package",
            type -> EXPORTED.contains(type.getPackageName()));
    }

    private static boolean internal(final JavaClass type)
    {
        final JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
        return base.getPackageName().startsWith("io.xio.engine.") && !EXPORTED.contains(base.getPackageName());
    }

    private static boolean visible(final java.util.Set<JavaModifier> modifiers)
    {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static ArchCondition<JavaClass> exposeNoInternalType()
    {
        return new ArchCondition<>("expose no internal type")
        {
            @Override
            public void check(final JavaClass type, final ConditionEvents events)
            {
                type.getRawSuperclass().filter(EngineArchitecture::internal).ifPresent(s -> violation(events, type,
                    "extends " + s.getName()));
                type.getRawInterfaces().stream().filter(EngineArchitecture::internal).forEach(i -> violation(events,
                    type, "implements " + i.getName()));
                for (final JavaField field : type.getFields())
                {
                    if (visible(field.getModifiers()) && internal(field.getRawType()))
                    {
                        violation(events, type, "field " + field.getName() + " is a " + field.getRawType().getName());
                    }
                }
                for (final JavaCodeUnit unit : type.getCodeUnits())
                {
                    if (!visible(unit.getModifiers()))
                    {
                        continue;
                    }
                    if (internal(unit.getRawReturnType()))
                    {
                        violation(events, type, unit.getFullName() + " returns " + unit.getRawReturnType().getName());
                    }
                    unit.getRawParameterTypes().stream().filter(EngineArchitecture::internal).forEach(p ->
                        violation(events, type, unit.getFullName() + " takes " + p.getName()));
                }
            }
        };
    }

    private static void violation(final ConditionEvents events, final JavaClass type, final String what)
    {
        events.add(SimpleConditionEvent.violated(type, type.getName() + ": " + what));
    }
}
