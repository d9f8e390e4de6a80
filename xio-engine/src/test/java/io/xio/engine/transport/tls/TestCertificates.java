package io.xio.engine.transport.tls;

import io.xio.engine.TlsOptions;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.SSLEngine;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Certificates made at test time for the {@code tls} transport (and the modules that test TLS on top of it, through
 * the engine's test jar, which then need {@code org.bouncycastle:bcpkix-jdk18on} on their test class path too): a
 * CA, a server certificate for {@code 127.0.0.1} and {@code localhost}, a client certificate, an expired server
 * certificate, and a second CA nobody trusts with a server and a client certificate of its own. EC P-256 keys, so
 * a set takes milliseconds. Writes PEM files, PKCS12 and JKS key and trust stores for configurations that read
 * files (Spring Boot's SSL bundles). Immutable once made; thread-safe.
 */
public final class TestCertificates
{
    /** The password of every key store this class writes. */
    public static final String PASSWORD = "changeit";

    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Identity ca;
    private final Identity server;
    private final Identity client;
    private final Identity expiredServer;
    private final Identity untrustedCa;
    private final Identity untrustedServer;
    private final Identity untrustedClient;

    /** A key, its certificate and the chain up to (not including) the root that issued it. */
    public record Identity(PrivateKey key, X509Certificate certificate, List<X509Certificate> chain)
    {
        public Identity
        {
            chain = List.copyOf(chain);
        }

        /** The certificate's subject, such as {@code CN=server}. */
        public String subject()
        {
            return certificate.getSubjectX500Principal().getName();
        }
    }

    private TestCertificates()
    {
        final Duration day = Duration.ofDays(1);
        ca = authority("xio test CA");
        server = issue("server", List.of("localhost"), List.of("127.0.0.1"), day, Duration.ofDays(30), ca);
        client = issue("client", List.of(), List.of(), day, Duration.ofDays(30), ca);
        expiredServer = issue("expired-server", List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(30),
            Duration.ofDays(1), ca);
        untrustedCa = authority("untrusted CA");
        untrustedServer = issue("untrusted-server", List.of("localhost"), List.of("127.0.0.1"), day,
            Duration.ofDays(30), untrustedCa);
        untrustedClient = issue("untrusted-client", List.of(), List.of(), day, Duration.ofDays(30), untrustedCa);
    }

    /** A fresh set. */
    public static TestCertificates create()
    {
        return new TestCertificates();
    }

    public Identity ca()
    {
        return ca;
    }

    /** For {@code 127.0.0.1} and {@code localhost}, issued by {@link #ca()}. */
    public Identity server()
    {
        return server;
    }

    /** A client certificate issued by {@link #ca()}. */
    public Identity client()
    {
        return client;
    }

    /** A server certificate of {@link #ca()} that expired yesterday. */
    public Identity expiredServer()
    {
        return expiredServer;
    }

    /** A CA that the contexts that trust {@link #ca()} do not trust. */
    public Identity untrustedCa()
    {
        return untrustedCa;
    }

    /** For {@code 127.0.0.1} and {@code localhost}, issued by {@link #untrustedCa()}. */
    public Identity untrustedServer()
    {
        return untrustedServer;
    }

    /** A client certificate issued by {@link #untrustedCa()}. */
    public Identity untrustedClient()
    {
        return untrustedClient;
    }

    /**
     * A certificate issued by {@code issuer} for these names and addresses (none: a client certificate).
     *
     * @param age how long ago it became valid
     * @param validity for how long from then
     */
    public Identity issue(final String commonName, final List<String> dnsNames, final List<String> ipAddresses,
        final Duration age, final Duration validity, final Identity issuer)
    {
        final KeyPair pair = keyPair();
        final Instant from = Instant.now().minus(age);
        try
        {
            final X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                issuer.certificate(), BigInteger.valueOf(SERIALS.incrementAndGet()),
                Date.from(from), Date.from(from.plus(validity)), new X500Name("CN=" + commonName), pair.getPublic());
            final JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                utils.createSubjectKeyIdentifier(pair.getPublic()));
            builder.addExtension(Extension.authorityKeyIdentifier, false,
                utils.createAuthorityKeyIdentifier(issuer.certificate()));
            final List<GeneralName> names = new ArrayList<>();
            dnsNames.forEach(name -> names.add(new GeneralName(GeneralName.dNSName, name)));
            ipAddresses.forEach(address -> names.add(new GeneralName(GeneralName.iPAddress, address)));
            if (!names.isEmpty())
            {
                builder.addExtension(Extension.subjectAlternativeName, false,
                    new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            final X509Certificate certificate = sign(builder, issuer.key());
            final List<X509Certificate> chain = new ArrayList<>();
            chain.add(certificate);
            if (issuer.chain().size() > 1)
            {
                chain.addAll(issuer.chain().subList(0, issuer.chain().size() - 1));
            }
            return new Identity(pair.getPrivate(), certificate, chain);
        }
        catch (final GeneralSecurityException | IOException | org.bouncycastle.operator.OperatorCreationException ex)
        {
            throw new IllegalStateException("cannot issue a test certificate", ex);
        }
    }

    private static Identity authority(final String commonName)
    {
        final KeyPair pair = keyPair();
        final Instant from = Instant.now().minus(Duration.ofDays(2));
        final X500Name name = new X500Name("CN=" + commonName);
        try
        {
            final X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name,
                BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(from), Date.from(from.plus(Duration.ofDays(
                    365))), name, pair.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                new JcaX509ExtensionUtils().createSubjectKeyIdentifier(pair.getPublic()));
            final X509Certificate certificate = sign(builder, pair.getPrivate());
            return new Identity(pair.getPrivate(), certificate, List.of(certificate));
        }
        catch (final GeneralSecurityException | IOException | org.bouncycastle.operator.OperatorCreationException ex)
        {
            throw new IllegalStateException("cannot make a test CA", ex);
        }
    }

    private static X509Certificate sign(final X509v3CertificateBuilder builder, final PrivateKey key)
        throws GeneralSecurityException, org.bouncycastle.operator.OperatorCreationException
    {
        return new JcaX509CertificateConverter().getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    }

    private static KeyPair keyPair()
    {
        try
        {
            final KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    // ---- contexts and options ----

    /** An SSLContext presenting {@code identity} (null: none) and trusting {@code trusted}. */
    public static SSLContext context(final Identity identity, final X509Certificate... trusted)
    {
        return context(identity, trustManagers(trusted));
    }

    /**
     * An SSLContext presenting {@code identity} (null: none) and deciding trust with {@code trust}. A client
     * presents its certificate even where the server names other issuers it would accept (the JDK's key manager
     * would then present none): a test of an untrusted client certificate needs it sent.
     */
    public static SSLContext context(final Identity identity, final TrustManager[] trust)
    {
        try
        {
            final KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(identity == null ? emptyStore() : keyStore("PKCS12", identity), PASSWORD.toCharArray());
            final SSLContext context = SSLContext.getInstance("TLS");
            final javax.net.ssl.KeyManager[] managers = identity == null ? keys.getKeyManagers() :
                new javax.net.ssl.KeyManager[] {alwaysPresenting((X509ExtendedKeyManager)keys.getKeyManagers()[0])};
            context.init(managers, trust, RANDOM);
            return context;
        }
        catch (final GeneralSecurityException | IOException ex)
        {
            throw new IllegalStateException("cannot make a test SSLContext", ex);
        }
    }

    private static X509ExtendedKeyManager alwaysPresenting(final X509ExtendedKeyManager keys)
    {
        return new X509ExtendedKeyManager()
        {
            @Override
            public String chooseEngineClientAlias(final String[] keyType, final Principal[] issuers,
                final SSLEngine engine)
            {
                return "key";
            }

            @Override
            public String chooseEngineServerAlias(final String keyType, final Principal[] issuers,
                final SSLEngine engine)
            {
                return keys.chooseEngineServerAlias(keyType, issuers, engine);
            }

            @Override
            public String[] getClientAliases(final String keyType, final Principal[] issuers)
            {
                return keys.getClientAliases(keyType, issuers);
            }

            @Override
            public String chooseClientAlias(final String[] keyType, final Principal[] issuers, final Socket socket)
            {
                return "key";
            }

            @Override
            public String[] getServerAliases(final String keyType, final Principal[] issuers)
            {
                return keys.getServerAliases(keyType, issuers);
            }

            @Override
            public String chooseServerAlias(final String keyType, final Principal[] issuers, final Socket socket)
            {
                return keys.chooseServerAlias(keyType, issuers, socket);
            }

            @Override
            public X509Certificate[] getCertificateChain(final String alias)
            {
                return keys.getCertificateChain(alias);
            }

            @Override
            public PrivateKey getPrivateKey(final String alias)
            {
                return keys.getPrivateKey(alias);
            }
        };
    }

    /** Trust managers that trust {@code trusted} (and nothing else). */
    public static TrustManager[] trustManagers(final X509Certificate... trusted)
    {
        try
        {
            final TrustManagerFactory factory = TrustManagerFactory.getInstance(
                TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trustStore("PKCS12", trusted));
            return factory.getTrustManagers();
        }
        catch (final GeneralSecurityException | IOException ex)
        {
            throw new IllegalStateException("cannot make test trust managers", ex);
        }
    }

    /** Presents {@link #server()}, trusts {@link #ca()}: for a portal, or a client that needs no certificate. */
    public TlsOptions serverOptions()
    {
        return TlsOptions.of(context(server, ca.certificate()));
    }

    /** Presents {@code identity} (null: none), trusts {@link #ca()}. */
    public TlsOptions options(final Identity identity)
    {
        return TlsOptions.of(context(identity, ca.certificate()));
    }

    // ---- files ----

    /** Writes {@code name.crt} (the chain, PEM) and {@code name.key} (PKCS#8, PEM) into {@code dir}; the .crt path. */
    public static Path writePem(final Path dir, final String name, final Identity identity) throws IOException
    {
        final StringBuilder chain = new StringBuilder();
        try
        {
            for (final X509Certificate certificate : identity.chain())
            {
                chain.append(pem("CERTIFICATE", certificate.getEncoded()));
            }
        }
        catch (final java.security.cert.CertificateEncodingException ex)
        {
            throw new IOException(ex);
        }
        final Path certificate = dir.resolve(name + ".crt");
        Files.writeString(certificate, chain, StandardCharsets.US_ASCII);
        Files.writeString(dir.resolve(name + ".key"), pem("PRIVATE KEY", identity.key().getEncoded()),
            StandardCharsets.US_ASCII);
        return certificate;
    }

    /** Writes {@code certificates} as one PEM file {@code name.crt}, such as a CA bundle to trust. */
    public static Path writePem(final Path dir, final String name, final X509Certificate... certificates)
        throws IOException
    {
        final StringBuilder all = new StringBuilder();
        try
        {
            for (final X509Certificate certificate : certificates)
            {
                all.append(pem("CERTIFICATE", certificate.getEncoded()));
            }
        }
        catch (final java.security.cert.CertificateEncodingException ex)
        {
            throw new IOException(ex);
        }
        final Path file = dir.resolve(name + ".crt");
        Files.writeString(file, all, StandardCharsets.US_ASCII);
        return file;
    }

    /**
     * Writes a key store of {@code type} ({@code PKCS12} or {@code JKS}) holding {@code identity} under the alias
     * {@code name}, password {@link #PASSWORD} (store and key); returns its path ({@code name.p12} or {@code .jks}).
     */
    public static Path writeKeyStore(final Path dir, final String name, final String type, final Identity identity)
        throws IOException
    {
        try
        {
            return store(dir, name, type, keyStore(type, identity, name));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IOException(ex);
        }
    }

    /** Writes a trust store of {@code type} holding {@code trusted}, password {@link #PASSWORD}; its path. */
    public static Path writeTrustStore(final Path dir, final String name, final String type,
        final X509Certificate... trusted) throws IOException
    {
        try
        {
            return store(dir, name, type, trustStore(type, trusted));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IOException(ex);
        }
    }

    private static Path store(final Path dir, final String name, final String type, final KeyStore store)
        throws IOException, GeneralSecurityException
    {
        final Path file = dir.resolve(name + ("JKS".equalsIgnoreCase(type) ? ".jks" : ".p12"));
        try (OutputStream out = Files.newOutputStream(file))
        {
            store.store(out, PASSWORD.toCharArray());
        }
        return file;
    }

    private static String pem(final String type, final byte[] der)
    {
        return "-----BEGIN " + type + "-----\n" +
            Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static KeyStore keyStore(final String type, final Identity identity)
        throws GeneralSecurityException, IOException
    {
        return keyStore(type, identity, "key");
    }

    private static KeyStore keyStore(final String type, final Identity identity, final String alias)
        throws GeneralSecurityException, IOException
    {
        final KeyStore store = KeyStore.getInstance(type);
        store.load(null, null);
        store.setKeyEntry(alias, identity.key(), PASSWORD.toCharArray(),
            identity.chain().toArray(X509Certificate[]::new));
        return store;
    }

    private static KeyStore trustStore(final String type, final X509Certificate... trusted)
        throws GeneralSecurityException, IOException
    {
        final KeyStore store = KeyStore.getInstance(type);
        store.load(null, null);
        for (int i = 0; i < trusted.length; i++)
        {
            store.setCertificateEntry("trusted-" + i, trusted[i]);
        }
        return store;
    }

    private static KeyStore emptyStore() throws GeneralSecurityException, IOException
    {
        final KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        return store;
    }
}
