package io.xio.spring.service;

import java.lang.reflect.Method;

/**
 * An exported exactly-once method ({@code @XioMethod(exactlyOnce = true)}) that cannot run exactly once, found at
 * start-up: the application has no execution ledger, transaction manager or data source for it, or the method's own
 * transaction settings would keep its writes out of the ledger's transaction. Names the service, the method, what
 * is wrong and what to do, for Spring Boot's failure analysis. Thrown by {@link XioServiceExporter#start()} on the
 * thread that starts the application context.
 */
public class ExactlyOnceSetupException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    private final String service;
    private final transient Method method;
    private final String problem;
    private final String action;

    /**
     * @param problem what is missing or wrong, as a sentence's end: "the application has no transaction manager"
     * @param action what to do about it
     */
    public ExactlyOnceSetupException(final String service, final Method method, final String problem,
        final String action)
    {
        super("the exactly-once method " + describe(method) + " of service '" + service + "' cannot run exactly " +
            "once: " + problem + ". " + action);
        this.service = service;
        this.method = method;
        this.problem = problem;
        this.action = action;
    }

    /** {@code Type.method(Parameter, ...)}, as a failure names a method. */
    public static String describe(final Method method)
    {
        final StringBuilder described = new StringBuilder(method.getDeclaringClass().getName()).append('.')
            .append(method.getName()).append('(');
        final Class<?>[] parameters = method.getParameterTypes();
        for (int i = 0; i < parameters.length; i++)
        {
            described.append(i == 0 ? "" : ", ").append(parameters[i].getSimpleName());
        }
        return described.append(')').toString();
    }

    /** The resource the service is exported as. */
    public String service()
    {
        return service;
    }

    public Method method()
    {
        return method;
    }

    /** What is missing or wrong. */
    public String problem()
    {
        return problem;
    }

    /** What to do about it. */
    public String action()
    {
        return action;
    }
}
