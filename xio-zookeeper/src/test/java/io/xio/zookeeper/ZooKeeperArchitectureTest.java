package io.xio.zookeeper;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.xio.engine.EngineArchitecture;
import org.junit.jupiter.api.Test;

/** The ZooKeeper module is a plug-in on the engine's API: it reaches the engine through its exported packages. */
class ZooKeeperArchitectureTest
{
    private static final JavaClasses CLASSES = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.xio");

    @Test
    void usesOnlyTheEnginesExportedPackages()
    {
        EngineArchitecture.onlyTheApiIsUsedBy("io.xio.zookeeper..").check(CLASSES);
    }
}
