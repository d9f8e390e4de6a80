package io.xio.spring.autoconfigure.sample.secure.api;

/** A service whose methods need callers of certain roles. */
public interface Trades
{
    /** The name of the caller the method ran as, or "anonymous". */
    String whoAmI();

    /** Traders only (ROLE_trader). */
    String trade(String what);

    /** Callers whose token has the audit scope (SCOPE_audit). */
    String audit();
}
