package io.xio.spring.boot;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.xio.engine.EngineArchitecture;
import org.junit.jupiter.api.Test;

/**
 * The Spring layer the starter brings (auto-configuration, actuator) reaches the engine through its exported
 * packages only: what Spring needs from the engine, the engine's API provides.
 */
class SpringArchitectureTest
{
    private static final JavaClasses SPRING = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio");

    @Test
    void springCodeUsesOnlyTheEnginesExportedPackages()
    {
        EngineArchitecture.onlyTheApiIsUsedBy("io.xio.spring..", "io.xio.actuate..").check(SPRING);
    }
}
