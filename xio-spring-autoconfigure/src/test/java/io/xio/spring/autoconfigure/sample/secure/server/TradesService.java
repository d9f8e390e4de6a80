package io.xio.spring.autoconfigure.sample.secure.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.secure.api.Trades;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * Runs inline on the context thread, so that calls of different sessions share a thread: what one call's
 * security context leaves behind would show in the next.
 */
@XioService(value = "trades", dispatch = XioService.Dispatch.INLINE)
public class TradesService implements Trades
{
    @Override
    public String whoAmI()
    {
        final Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        return authentication == null ? "anonymous" : authentication.getName();
    }

    @Override
    @PreAuthorize("hasRole('trader')")
    public String trade(final String what)
    {
        return whoAmI() + " traded " + what;
    }

    @Override
    @PreAuthorize("hasAuthority('SCOPE_audit')")
    public String audit()
    {
        return whoAmI() + " audited";
    }
}
