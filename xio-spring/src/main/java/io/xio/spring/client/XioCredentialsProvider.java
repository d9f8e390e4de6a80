package io.xio.spring.client;

import io.xio.engine.Credentials;
import org.jspecify.annotations.Nullable;

/**
 * The credentials a client presents when its session is set up, asked at every set-up (the first, and each one
 * after the session was lost), so a token that expires can be replaced: declare one as a bean, for instance over
 * an OAuth2 client's authorized-client manager. Asked before the client's {@code credentials.*} properties; the
 * first provider (in {@code @Order}) that returns non-null decides.
 *
 * <p>Called on an engine context thread while the set-up waits: it must not block. Return a token held in memory,
 * and refresh it ahead of its expiry on another thread (a scheduled task), rather than fetch one here.
 */
@FunctionalInterface
public interface XioCredentialsProvider
{
    /**
     * What the client {@code client} presents now; null to leave it to the next provider or the properties.
     *
     * @param client the client's name ({@code xio.clients.<name>}), or its URI when it has none
     */
    @Nullable Credentials credentials(String client);
}
