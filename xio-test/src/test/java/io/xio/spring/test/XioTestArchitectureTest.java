package io.xio.spring.test;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.xio.engine.EngineArchitecture;
import org.junit.jupiter.api.Test;

/** The test support reaches the engine through its exported packages (the local transport through the SPI). */
class XioTestArchitectureTest
{
    @Test
    void theTestSupportUsesOnlyTheEnginesExportedPackages()
    {
        EngineArchitecture.onlyTheApiIsUsedBy("io.xio.spring.test..").check(new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio.spring.test"));
    }
}
