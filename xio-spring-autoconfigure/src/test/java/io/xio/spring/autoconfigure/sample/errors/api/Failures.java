package io.xio.spring.autoconfigure.sample.errors.api;

import java.util.concurrent.atomic.AtomicInteger;

/** The exceptions the sample service throws, by name, and the tripwires that show what a client made. */
public final class Failures
{
    /** The name of a class the service's peer names in a failure and nothing else ever loads or initializes. */
    public static final String NEVER_LOADED = "io.xio.spring.autoconfigure.sample.errors.api.NeverLoaded";

    /** How often {@code NeverLoaded} was initialized: never, unless a client did it. */
    public static final AtomicInteger NEVER_LOADED_INITIALIZED = new AtomicInteger();

    private Failures()
    {
    }

    /** The exception {@code kind} names. */
    public static RuntimeException named(final String kind)
    {
        return switch (kind)
        {
            case "illegal-argument" -> new IllegalArgumentException("bad argument");
            case "number" -> new NumberFormatException("x7");
            case "huge" -> new IllegalArgumentException("\u00e9".repeat(100_000));
            case "ledger" -> new LedgerException("ledger broken");
            case "overdrawn" -> new OverdrawnException("by 5");
            case "frozen" -> new FrozenException("since monday");
            case "audit" -> new AuditException("audit failed");
            case "deep-audit" -> new DeepAuditException("deep audit failed");
            case "unsupported" -> new UnsupportedOperationException("not here");
            case "declined" -> new DeclinedException("no handler wants me");
            case "translated" -> new TranslatedException("turned into another");
            case "constructed" -> new Constructed("made on the server");
            case "globally-allowed" -> new GloballyAllowed("allowed for every client");
            case "client-allowed" -> new ClientAllowed("allowed for one client");
            default -> new IllegalStateException("unknown kind " + kind);
        };
    }

    /** The base of the ledger's failures; the service maps it. */
    public static class LedgerException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public LedgerException(final String message)
        {
            super(message);
        }
    }

    /** A ledger failure with a handler of its own on the service. */
    public static class OverdrawnException extends LedgerException
    {
        private static final long serialVersionUID = 1L;

        public OverdrawnException(final String message)
        {
            super(message);
        }
    }

    /** A ledger failure an advice handles too, but the service's own handler for its supertype wins. */
    public static class FrozenException extends LedgerException
    {
        private static final long serialVersionUID = 1L;

        public FrozenException(final String message)
        {
            super(message);
        }
    }

    /** Two advices handle it: the first in order wins. */
    public static class AuditException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public AuditException(final String message)
        {
            super(message);
        }
    }

    /** The later advice handles exactly this type, the first one its supertype: the first still wins. */
    public static class DeepAuditException extends AuditException
    {
        private static final long serialVersionUID = 1L;

        public DeepAuditException(final String message)
        {
            super(message);
        }
    }

    /** Its handler rethrows it. */
    public static class DeclinedException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public DeclinedException(final String message)
        {
            super(message);
        }
    }

    /** Its handler throws an {@link IllegalStateException} instead. */
    public static class TranslatedException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public TranslatedException(final String message)
        {
            super(message);
        }
    }

    /** On no allow-list; counts its instances. */
    public static class Constructed extends RuntimeException
    {
        /** Instances made, in this JVM. */
        public static final AtomicInteger MADE = new AtomicInteger();
        private static final long serialVersionUID = 1L;

        public Constructed(final String message)
        {
            super(message);
            MADE.incrementAndGet();
        }
    }

    /** Allowed by {@code xio.client.allowed-exceptions} where a test configures it. */
    public static class GloballyAllowed extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public GloballyAllowed(final String message)
        {
            super(message);
        }
    }

    /** Allowed by {@code xio.clients.accounts.allowed-exceptions} where a test configures it. */
    public static class ClientAllowed extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public ClientAllowed(final String message)
        {
            super(message);
        }
    }
}
