package io.xio.spring.error;

/**
 * How much of a failure nobody chose to expose reaches the caller: an exception a service method threw that its
 * interface method does not declare and no {@link io.xio.annotation.XioExceptionHandler} answered, or one of xio's
 * own (arguments that could not be decoded, a result that could not be encoded). By default the caller learns only
 * that the call failed and an error id, which the server's log line for the failure (with its stack trace) also
 * carries, so support can find it; the exception's class name and message stay in the log. For development the
 * message, the class name or both may go out, as Boot's {@code server.error.include-*} do for web errors. Stack
 * traces never travel. Immutable.
 *
 * @param includeMessage whether the caller gets the exception's own message instead of a generic one
 * @param includeException whether the caller gets the exception's class name (so a client may rebuild an allowed
 *        type such as {@code IllegalArgumentException}) instead of {@link #HIDDEN_TYPE}
 */
public record XioErrorDisclosure(boolean includeMessage, boolean includeException)
{
    /** Neither the message nor the class name: the production default. */
    public static final XioErrorDisclosure HIDDEN = new XioErrorDisclosure(false, false);

    /** Both, for development. */
    public static final XioErrorDisclosure SHOWN = new XioErrorDisclosure(true, true);

    /** The type name a caller is told when the class name is not disclosed; no class has it. */
    public static final String HIDDEN_TYPE = "xio.InternalError";

    /** The generic message a caller gets instead of the exception's, with the id of the server's log line. */
    public static String genericMessage(final String errorId)
    {
        return "the service failed; error id " + errorId;
    }
}
