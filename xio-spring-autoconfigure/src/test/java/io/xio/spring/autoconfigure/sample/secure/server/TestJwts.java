package io.xio.spring.autoconfigure.sample.secure.server;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/** JWTs signed with an RSA key made for this test run, and keys that did not sign them. */
public final class TestJwts
{
    private static final KeyPair KEY = rsa();

    private TestJwts()
    {
    }

    /** The key the server's JwtDecoder checks signatures with. */
    public static RSAPublicKey publicKey()
    {
        return (RSAPublicKey)KEY.getPublic();
    }

    /** A token for {@code subject} with {@code scope}, valid for {@code lifetime} (negative: expired). */
    public static String token(final String subject, final String scope, final Duration lifetime)
    {
        return sign(KEY, subject, scope, lifetime);
    }

    /** A well-formed token signed with another key. */
    public static String forged(final String subject, final String scope)
    {
        return sign(rsa(), subject, scope, Duration.ofMinutes(5));
    }

    private static String sign(final KeyPair key, final String subject, final String scope, final Duration lifetime)
    {
        final Instant now = Instant.now();
        final JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).claim("scope", scope)
            .issueTime(Date.from(now.minusSeconds(600))).notBeforeTime(Date.from(now.minusSeconds(600)))
            .expirationTime(Date.from(now.plus(lifetime))).build();
        final SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
        try
        {
            jwt.sign(new RSASSASigner(key.getPrivate()));
        }
        catch (final JOSEException ex)
        {
            throw new IllegalStateException(ex);
        }
        return jwt.serialize();
    }

    private static KeyPair rsa()
    {
        try
        {
            final KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
