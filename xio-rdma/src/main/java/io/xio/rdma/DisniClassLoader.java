package io.xio.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * Defines DiSNI's classes and xio's verbs code itself (child first) so that the JVM asks it, through
 * {@link #findLibrary}, where DiSNI's {@code System.loadLibrary("disni")} finds its library: the copy
 * extracted from the native jar. The JDK consults {@code findLibrary} of the loader of the class calling
 * {@code loadLibrary} before it searches {@code java.library.path}, and java.library.path is fixed at JVM
 * start, so this is how a library shipped inside a jar satisfies a third party's loadLibrary. When the jar
 * has no library, {@code findLibrary} answers null and the JVM searches java.library.path as usual.
 * Everything else (the engine, SLF4J, Agrona) comes from the parent. Thread-safe.
 */
final class DisniClassLoader extends ClassLoader
{
    private static final String[] OWN = {"com.ibm.disni.", "io.xio.rdma.verbs."};

    static
    {
        registerAsParallelCapable();
    }

    private final Path library;

    DisniClassLoader(final ClassLoader parent, final Path library)
    {
        super("xio-disni", parent);
        this.library = library;
    }

    @Override
    protected Class<?> loadClass(final String name, final boolean resolve) throws ClassNotFoundException
    {
        if (!isOwn(name))
        {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name))
        {
            Class<?> type = findLoadedClass(name);
            if (type == null)
            {
                type = findClass(name);
            }
            if (resolve)
            {
                resolveClass(type);
            }
            return type;
        }
    }

    @Override
    protected Class<?> findClass(final String name) throws ClassNotFoundException
    {
        final String resource = name.replace('.', '/') + ".class";
        try (InputStream in = getParent().getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new ClassNotFoundException(name);
            }
            final byte[] bytes = in.readAllBytes();
            return defineClass(name, bytes, 0, bytes.length);
        }
        catch (final IOException ex)
        {
            throw new ClassNotFoundException(name, ex);
        }
    }

    @Override
    protected String findLibrary(final String name)
    {
        return "disni".equals(name) && library != null ? library.toString() : null;
    }

    private static boolean isOwn(final String name)
    {
        for (final String prefix : OWN)
        {
            if (name.startsWith(prefix))
            {
                return true;
            }
        }
        return false;
    }
}
