package io.xio.spring.client;

import io.xio.spring.error.XioErrorCode;
import org.jspecify.annotations.Nullable;

/**
 * The server refused a call because of who the caller is: {@link XioErrorCode#PERMISSION_DENIED} (the caller is
 * known and may not do this, such as a {@code @PreAuthorize} that did not hold) or
 * {@link XioErrorCode#UNAUTHENTICATED} (the call needed an authenticated caller). Thrown by a client proxy in
 * place of a plain {@link XioRemoteException} whenever the server answered with one of these codes and the
 * failure's type is not one the client rebuilds.
 */
public class XioAccessDeniedException extends XioRemoteException
{
    private static final long serialVersionUID = 1L;

    public XioAccessDeniedException(final String remoteType, final XioErrorCode code, final String message,
        final @Nullable Throwable cause)
    {
        super(remoteType, code, message, cause);
    }

    /** Whether the code says who refused it is about: denied, or not authenticated. */
    static boolean applies(final XioErrorCode code)
    {
        return code == XioErrorCode.PERMISSION_DENIED || code == XioErrorCode.UNAUTHENTICATED;
    }
}
