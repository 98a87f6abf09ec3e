package dev.baton.testing;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.x500.X500Principal;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;

/**
 * A private certificate authority made at test time, with the key stores and trust stores TLS tests need: one
 * for the server (valid for {@code localhost} and {@code 127.0.0.1}, so ZooKeeper's hostname verification
 * passes), a trust store holding the authority, and one key store per client name, for x509 client
 * authentication. Nothing is read from the source tree: keys and certificates are generated with the JDK
 * (elliptic-curve P-256 keys, SHA-256 with ECDSA signatures, valid from an hour ago for two days) and written as
 * PKCS#12 files with random passwords into a temporary directory that {@link #close()} deletes (and that
 * {@link KitResources} tracks, so a forgotten one is deleted when the JVM exits).
 *
 * <pre>{@code
 * try (TlsCertificates certs = TlsCertificates.create();
 *         EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder()
 *                 .security(ServerSecurity.builder().tls(certs).build()).build().start()) {
 *     ZooKeeper client = new ZooKeeper(zk.connectString(), 10_000, e -> { }, certs.clientConfig("alice"));
 *     ...
 * }
 * }</pre>
 *
 * <p>A client of another {@code TlsCertificates} is untrusted here, and this authority's trust store does not
 * trust another's server: two instances are the way to test refused certificates.
 *
 * <p>Thread-safety: all methods are safe to call from any thread.
 */
public final class TlsCertificates implements AutoCloseable {
    private static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
    private static final String SIGNATURE_OID = "1.2.840.10045.4.3.2";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final int DIGITAL_SIGNATURE = 0;
    private static final int KEY_CERT_SIGN = 5;
    private static final int CRL_SIGN = 6;
    private static final String PASSWORD_CHARS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

    private final SecureRandom random = new SecureRandom();
    private final Path directory;
    private final X500Principal caName;
    private final KeyPair caKeys;
    private final X509Certificate caCertificate;
    private final KeyStoreFile trustStore;
    private final KeyStoreFile serverKeyStore;
    private final Map<String, KeyStoreFile> clients = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private TlsCertificates() {
        this.directory = KitResources.createTempDirectory("baton-tls-");
        try {
            this.caName = new X500Principal("CN=Baton test CA " + Long.toHexString(random.nextLong())
                    + ",O=Baton test kit");
            this.caKeys = newKeyPair();
            this.caCertificate = issue(caName, caKeys, caName, caKeys.getPrivate(), true, false);
            this.trustStore = writeTrustStore();
            this.serverKeyStore = writeKeyStore("server", new X500Principal("CN=localhost,O=Baton test kit"), true);
        } catch (RuntimeException | Error e) {
            KitResources.deleteTempDirectory(directory);
            throw e;
        }
        KitX509AuthenticationProvider.trust(caCertificate);
    }

    /**
     * Makes a new authority, its trust store and the server's key store.
     *
     * @return the certificates; close them to delete their files
     * @throws UncheckedIOException if a file cannot be written
     * @throws IllegalStateException if the JDK cannot make the keys or certificates
     */
    public static TlsCertificates create() {
        return new TlsCertificates();
    }

    /**
     * The server's key store: its key and a certificate for {@code localhost} / {@code 127.0.0.1} signed by this
     * authority (the chain includes the authority).
     *
     * @return the store
     */
    public KeyStoreFile serverKeyStore() {
        return serverKeyStore;
    }

    /**
     * A trust store holding only this authority's certificate: it trusts this authority's server and clients.
     *
     * @return the store
     */
    public KeyStoreFile trustStore() {
        return trustStore;
    }

    /**
     * The key store of a client named {@code name}: a key and a certificate with subject {@link #subject(String)},
     * signed by this authority. Made on first use; the same store afterwards.
     *
     * @param name the client's common name, such as {@code "alice"}
     * @return the store
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or holds a character a distinguished name would
     *     have to escape ({@code , + = " \ < > ; #})
     * @throws IllegalStateException if closed
     */
    public KeyStoreFile clientKeyStore(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.chars().anyMatch(c -> ",+=\"\\<>;#".indexOf(c) >= 0)) {
            throw new IllegalArgumentException("name must be a plain common name: \"" + name + "\"");
        }
        requireOpen();
        return clients.computeIfAbsent(name, n -> writeKeyStore("client-" + n, new X500Principal(subject(n)), false));
    }

    /**
     * The distinguished name of client {@code name}'s certificate as ZooKeeper's {@code x509} scheme sees it:
     * the id to put in an ACL, {@code new Id("x509", certs.subject("alice"))}.
     *
     * @param name the client's common name
     * @return {@code "CN=<name>,O=Baton test kit"}
     */
    public String subject(String name) {
        return new X500Principal("CN=" + Objects.requireNonNull(name, "name") + ",O=Baton test kit").getName();
    }

    /**
     * ZooKeeper client settings for TLS with this authority's trust store and no client certificate.
     *
     * @return a new configuration ({@code zookeeper.client.secure}, the Netty socket, the trust store)
     */
    public ZKClientConfig clientConfig() {
        ZKClientConfig config = new ZKClientConfig();
        try (ClientX509Util x509 = new ClientX509Util()) {
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET,
                    "org.apache.zookeeper.ClientCnxnSocketNetty");
            config.setProperty(x509.getSslTruststoreLocationProperty(), trustStore.path().toString());
            config.setProperty(x509.getSslTruststorePasswdProperty(), trustStore.password());
            config.setProperty(x509.getSslTruststoreTypeProperty(), trustStore.type());
        }
        return config;
    }

    /**
     * ZooKeeper client settings for TLS with this authority's trust store and the certificate of client
     * {@code name} (see {@link #clientKeyStore(String)}).
     *
     * @param name the client's common name
     * @return a new configuration
     */
    public ZKClientConfig clientConfig(String name) {
        KeyStoreFile keyStore = clientKeyStore(name);
        ZKClientConfig config = clientConfig();
        try (ClientX509Util x509 = new ClientX509Util()) {
            config.setProperty(x509.getSslKeystoreLocationProperty(), keyStore.path().toString());
            config.setProperty(x509.getSslKeystorePasswdProperty(), keyStore.password());
            config.setProperty(x509.getSslKeystoreTypeProperty(), keyStore.type());
        }
        return config;
    }

    /**
     * This authority's own certificate.
     *
     * @return the self-signed certificate
     */
    public X509Certificate authority() {
        return caCertificate;
    }

    /**
     * The directory holding the stores; deleted by {@link #close()}.
     *
     * @return the directory
     */
    public Path directory() {
        return directory;
    }

    /** Deletes the stores' directory. Calling it again does nothing. */
    @Override
    public void close() {
        closed = true;
        KitResources.deleteTempDirectory(directory);
    }

    /** The authority's name and the directory. */
    @Override
    public String toString() {
        return "TlsCertificates[" + caName.getName() + ", " + directory + "]";
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("these certificates are closed: " + this);
        }
    }

    private KeyStoreFile writeTrustStore() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("baton-test-ca", caCertificate);
            return save(store, "truststore");
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make the trust store", e);
        }
    }

    private KeyStoreFile writeKeyStore(String fileName, X500Principal subject, boolean server) {
        try {
            KeyPair keys = newKeyPair();
            X509Certificate certificate = issue(subject, keys, caName, caKeys.getPrivate(), false, server);
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            String password = newPassword();
            store.setKeyEntry("key", keys.getPrivate(), password.toCharArray(),
                    new Certificate[] {certificate, caCertificate});
            return save(store, fileName, password);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make the key store " + fileName, e);
        }
    }

    private KeyStoreFile save(KeyStore store, String fileName) throws GeneralSecurityException, IOException {
        return save(store, fileName, newPassword());
    }

    private KeyStoreFile save(KeyStore store, String fileName, String password)
            throws GeneralSecurityException, IOException {
        Path file = directory.resolve(fileName + ".p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return new KeyStoreFile(file, password, "PKCS12");
    }

    private String newPassword() {
        StringBuilder password = new StringBuilder(20);
        for (int i = 0; i < 20; i++) {
            password.append(PASSWORD_CHARS.charAt(random.nextInt(PASSWORD_CHARS.length())));
        }
        return password.toString();
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make an EC key pair", e);
        }
    }

    /**
     * Issues a version 3 certificate: an authority's (basic constraints CA, may sign certificates) or an end
     * entity's (may sign handshakes; a server's also names {@code localhost} and {@code 127.0.0.1}).
     */
    private X509Certificate issue(X500Principal subject, KeyPair subjectKeys, X500Principal issuer,
            PrivateKey issuerKey, boolean authority, boolean server) {
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC); // certificates state their times in UTC
        byte[] algorithm = Der.sequence(Der.oid(SIGNATURE_OID));
        byte[] extensions = authority
                ? Der.sequence(
                        extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
                        extension(KEY_USAGE, true, Der.namedBits(KEY_CERT_SIGN, CRL_SIGN)))
                : server
                ? Der.sequence(
                        extension(BASIC_CONSTRAINTS, true, Der.sequence()),
                        extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE)),
                        extension(SUBJECT_ALT_NAME, false, Der.sequence(
                                Der.implicit(2, "localhost".getBytes(StandardCharsets.US_ASCII)),
                                Der.implicit(7, new byte[] {127, 0, 0, 1}))))
                : Der.sequence(
                        extension(BASIC_CONSTRAINTS, true, Der.sequence()),
                        extension(KEY_USAGE, true, Der.namedBits(DIGITAL_SIGNATURE)));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.TWO)), // version 3
                Der.integer(new BigInteger(63, random).add(BigInteger.ONE)),
                algorithm,
                Der.raw(issuer.getEncoded()),
                Der.sequence(Der.utcTime(now.minusHours(1)), Der.utcTime(now.plusDays(2))),
                Der.raw(subject.getEncoded()),
                Der.raw(subjectKeys.getPublic().getEncoded()),
                Der.explicit(3, extensions));
        try {
            Signature signer = Signature.getInstance(SIGNATURE_ALGORITHM);
            signer.initSign(issuerKey, random);
            signer.update(tbs);
            byte[] certificate = Der.sequence(Der.raw(tbs), algorithm, Der.bitString(signer.sign()));
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(certificate));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue a certificate for " + subject, e);
        }
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical
                ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
                : Der.sequence(Der.oid(oid), Der.octetString(value));
    }
}
