package io.xio.spring.client;

import io.xio.engine.RemoteException;
import io.xio.spring.error.XioErrorBody;
import io.xio.spring.error.XioErrorCode;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Which of a server's exceptions a client rebuilds as themselves, so that a server never makes it initialize or
 * construct a class it did not agree to: the exact types the called method declares, the configured ones
 * ({@code xio.client.allowed-exceptions} and the client's own), and the JDK's common unchecked exceptions. A type
 * the method does not declare but that extends one it declares comes back as the nearest declared type (the
 * named class is loaded to learn that, never initialized). Anything else is an {@link XioRemoteException} (an
 * {@link XioAccessDeniedException} when the code says the caller was denied or not authenticated); a
 * rebuilt exception has one as its cause (or suppressed, if it has a cause of its own) saying where it came
 * from. Immutable.
 */
final class AllowedExceptions
{
    /** Unchecked exceptions of the JDK that any caller may meet, with a {@code (String)} constructor. */
    static final Map<String, Class<?>> JDK = byName(List.of(IllegalArgumentException.class,
        IllegalStateException.class, UnsupportedOperationException.class, NoSuchElementException.class,
        IndexOutOfBoundsException.class, ArrayIndexOutOfBoundsException.class, StringIndexOutOfBoundsException.class,
        ArithmeticException.class, NullPointerException.class, ClassCastException.class, NumberFormatException.class,
        ConcurrentModificationException.class, RejectedExecutionException.class));

    private final Map<String, Class<?>> configured;

    /** Also rebuilds {@code configured}. */
    AllowedExceptions(final Collection<Class<? extends Exception>> configured)
    {
        this.configured = byName(configured);
    }

    /** The failure of a call to {@code method} that {@code remote} reports, as the caller gets it. */
    Throwable rebuild(final RemoteException remote, final Method method)
    {
        final XioErrorCode code = XioErrorBody.code(remote.remoteMessage());
        final XioRemoteException fromServer = XioAccessDeniedException.applies(code)
            ? new XioAccessDeniedException(remote.remoteType(), code, XioErrorBody.message(remote.remoteMessage()),
                remote)
            : new XioRemoteException(remote.remoteType(), code, XioErrorBody.message(remote.remoteMessage()), remote);
        final Class<?> type = allowed(remote.remoteType(), method);
        if (type == null)
        {
            return fromServer;
        }
        final Throwable rebuilt = construct(type, fromServer);
        return rebuilt != null ? rebuilt : fromServer;
    }

    /** The class a failure named {@code name} is rebuilt as, or null. */
    private @Nullable Class<?> allowed(final String name, final Method method)
    {
        final Class<?>[] declared = method.getExceptionTypes();
        for (final Class<?> type : declared)
        {
            if (type.getName().equals(name) && Exception.class.isAssignableFrom(type))
            {
                return type;
            }
        }
        Class<?> type = JDK.get(name);
        if (type == null)
        {
            type = configured.get(name);
        }
        if (type != null)
        {
            // A checked exception the method does not declare could not reach its caller as itself.
            return RuntimeException.class.isAssignableFrom(type) || nearest(type, declared) != null ? type : null;
        }
        return nearestDeclared(name, method, declared);
    }

    /**
     * The declared type nearest above the class named {@code name}: that class is loaded without running any of
     * its code (it is not initialized) to learn its supertypes, and only when the method declares exceptions.
     */
    private static @Nullable Class<?> nearestDeclared(final String name, final Method method, final Class<?>[] declared)
    {
        if (declared.length == 0)
        {
            return null;
        }
        try
        {
            return nearest(Class.forName(name, false, method.getDeclaringClass().getClassLoader()), declared);
        }
        catch (final ClassNotFoundException | LinkageError notHere)
        {
            return null;
        }
    }

    private static @Nullable Class<?> nearest(final Class<?> type, final Class<?>[] declared)
    {
        Class<?> nearest = null;
        for (final Class<?> candidate : declared)
        {
            if (Exception.class.isAssignableFrom(candidate) && candidate.isAssignableFrom(type) &&
                (nearest == null || nearest.isAssignableFrom(candidate)))
            {
                nearest = candidate;
            }
        }
        return nearest;
    }

    /** An allowed type made from the server's message, or null when it has no public constructor for one. */
    private static @Nullable Throwable construct(final Class<?> type, final XioRemoteException fromServer)
    {
        try
        {
            try
            {
                final Throwable rebuilt = (Throwable)type.getConstructor(String.class)
                    .newInstance(fromServer.remoteMessage());
                if (rebuilt.getCause() == null)
                {
                    try
                    {
                        rebuilt.initCause(fromServer);
                        return rebuilt;
                    }
                    catch (final IllegalStateException causeSetAlready)
                    {
                        // its constructor set a (null) cause: say it as a suppressed exception
                    }
                }
                rebuilt.addSuppressed(fromServer);
                return rebuilt;
            }
            catch (final NoSuchMethodException noMessageConstructor)
            {
                return (Throwable)type.getConstructor(String.class, Throwable.class)
                    .newInstance(fromServer.remoteMessage(), fromServer);
            }
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError cannot)
        {
            return null;
        }
    }

    private static Map<String, Class<?>> byName(final Collection<? extends Class<?>> types)
    {
        return types.stream().collect(Collectors.toUnmodifiableMap(Class::getName, Function.identity(),
            (a, b) -> a));
    }
}
