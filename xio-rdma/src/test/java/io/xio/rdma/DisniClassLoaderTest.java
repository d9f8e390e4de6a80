package io.xio.rdma;

import io.xio.engine.transport.Transport;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How DiSNI's {@code System.loadLibrary("disni")} is pointed at the library from the jar, checked without
 * RDMA: DiSNI and the verbs code are defined by our loader, which names the library; the rest is shared.
 */
class DisniClassLoaderTest
{
    @Test
    void definesDisniAndTheVerbsCodeItselfAndSharesTheEngine() throws Exception
    {
        final Path library = Path.of("/tmp/xio-libdisni-test.so");
        final DisniClassLoader loader = new DisniClassLoader(getClass().getClassLoader(), library);
        final Class<?> dispatcher = Class.forName("com.ibm.disni.verbs.impl.NativeDispatcher", false, loader);
        final Class<?> verbs = Class.forName("io.xio.rdma.verbs.VerbsTransport", false, loader);
        assertThat(dispatcher.getClassLoader()).isSameAs(loader);
        assertThat(verbs.getClassLoader()).isSameAs(loader);
        assertThat(Transport.class.isAssignableFrom(verbs)).as("the SPI type is the engine's own").isTrue();
        assertThat(Class.forName("org.agrona.BufferUtil", false, loader).getClassLoader())
            .isSameAs(getClass().getClassLoader());
        assertThat(loader.findLibrary("disni")).isEqualTo(library.toString());
        assertThat(loader.findLibrary("other")).isNull();
        assertThat(new DisniClassLoader(getClass().getClassLoader(), null).findLibrary("disni"))
            .as("no library in the jar: the JVM searches java.library.path").isNull();
    }

    @Test
    void extractsTheLibraryTheBuildPutInTheJarOrReportsThereIsNone() throws Exception
    {
        final ClassLoader resources = getClass().getClassLoader();
        final Path extracted = RdmaSupport.extractLibrary(resources);
        try (InputStream in = resources.getResourceAsStream(RdmaSupport.LIBRARY_RESOURCE))
        {
            if (in == null)
            {
                assertThat(extracted).as("built without rdma-core headers").isNull();
                return;
            }
            assertThat(Files.readAllBytes(extracted)).isEqualTo(in.readAllBytes());
        }
        finally
        {
            if (extracted != null)
            {
                Files.delete(extracted);
            }
        }
    }
}
