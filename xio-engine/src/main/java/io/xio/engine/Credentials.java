package io.xio.engine;

import java.util.Objects;

/**
 * What a client presents in its session set-up to prove who it is, on every transport (rdma and shm have no TLS):
 * a bearer token or a user name and password; a TLS client certificate needs none (see {@link PeerIdentity}).
 * The server's {@link SessionAcceptor} reads it from {@link SetupRequest#credentials()}. The secret never
 * appears in their {@code toString()}, so a logged request shows only the kind. Immutable.
 */
public sealed interface Credentials
{
    /** No credentials. */
    Credentials NONE = new None();

    static Credentials bearer(final String token)
    {
        return new Bearer(token);
    }

    static Credentials password(final String username, final String password)
    {
        return new Password(username, password);
    }

    /** No credentials were sent. */
    record None() implements Credentials
    {
        @Override
        public String toString()
        {
            return "none";
        }
    }

    /** @param token an opaque token, such as a JWT */
    record Bearer(String token) implements Credentials
    {
        public Bearer
        {
            Objects.requireNonNull(token, "token");
        }

        @Override
        public String toString()
        {
            return "bearer(redacted)";
        }
    }

    /** @param username who the client says it is; @param password proves it */
    record Password(String username, String password) implements Credentials
    {
        public Password
        {
            Objects.requireNonNull(username, "username");
            Objects.requireNonNull(password, "password");
        }

        @Override
        public String toString()
        {
            return "password(redacted)"; // users mistype their password into the user name field too
        }
    }
}
