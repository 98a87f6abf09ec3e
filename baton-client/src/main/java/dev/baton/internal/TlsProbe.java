package dev.baton.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Enumeration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.SSLContextAndOptions;
import org.apache.zookeeper.common.X509Exception;
import org.apache.zookeeper.common.X509Util;
import org.jspecify.annotations.Nullable;

/**
 * Finds out why a TLS client cannot connect. ZooKeeper's client only logs a refused handshake and tries the next
 * server, again and again, so its user would see nothing but connection losses; when the client has not connected
 * within its connection timeout, the client's session asks this class to shake hands with a server itself, with
 * the client's own TLS settings, and turns what went wrong into a {@link TlsFailure} for the caller.
 *
 * <p>Each probe is bounded ({@link #CONNECT_TIMEOUT_MS}, then {@link #READ_TIMEOUT_MS} per read; no further
 * server is tried once one probe's bound has passed), sends nothing after the handshake, and is made only after a
 * connection wait has already failed.
 */
public final class TlsProbe {
    /** The bound of a probe's connect. */
    public static final int CONNECT_TIMEOUT_MS = 1_500;
    /**
     * The bound of each read of a probe's handshake, and of the read that waits for the server's verdict on the
     * client's certificate: longer than the connect, because a busy server may take a while to answer, and it
     * costs only when TLS turns out to be fine.
     */
    public static final int READ_TIMEOUT_MS = 3_000;

    private TlsProbe() {
    }

    /**
     * Whether {@code config} makes the ZooKeeper client use TLS.
     *
     * @param config the client's configuration, or null
     * @return true with {@code zookeeper.client.secure=true}
     */
    public static boolean isSecure(@Nullable ZKClientConfig config) {
        return config != null && config.getBoolean(ZKClientConfig.SECURE_CLIENT);
    }

    /**
     * Shakes hands with the first server of {@code connectString} that refuses, using {@code config}'s TLS
     * settings.
     *
     * @param config the client's configuration, or null
     * @param connectString the servers, as the client was given them
     * @return why TLS fails, or empty if it does not (or the servers cannot be reached at all, or the client does
     *     not use TLS)
     */
    public static Optional<TlsFailure> diagnose(@Nullable ZKClientConfig config, String connectString) {
        if (config == null || !isSecure(config)) {
            return Optional.empty();
        }
        SSLContextAndOptions context;
        try (ClientX509Util x509 = new ClientX509Util()) {
            context = x509.createSSLContextAndOptions(config);
        } catch (X509Exception.SSLContextException | RuntimeException e) {
            return Optional.of(new TlsFailure("the client's TLS settings cannot be used: " + e.getMessage(), e));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_TIMEOUT_MS + READ_TIMEOUT_MS);
        for (InetSocketAddress server : new ConnectStringParser(connectString).getServerAddresses()) {
            Optional<TlsFailure> failure = probe(context, server, config);
            if (failure.isPresent() || System.nanoTime() - deadline > 0) {
                return failure; // servers that do not answer at all must not hold the caller up server by server
            }
        }
        return Optional.empty();
    }

    /** What the client's side of a handshake showed about the certificate it sent the server. */
    private enum Sent {
        /** The client answered the server's certificate request with a certificate. */
        CERTIFICATE,
        /** The client answered with an empty certificate list (or was asked for none). */
        NONE,
        /** The handshake failed before the client's side of it was done (TLS 1.2): it does not tell. */
        UNKNOWN
    }

    private static Optional<TlsFailure> probe(SSLContextAndOptions context, InetSocketAddress unresolved,
            ZKClientConfig config) {
        InetSocketAddress server = new InetSocketAddress(unresolved.getHostString(), unresolved.getPort());
        if (server.isUnresolved()) {
            return Optional.empty();
        }
        String name = unresolved.getHostString() + ":" + unresolved.getPort();
        Sent sent = Sent.UNKNOWN;
        try (SSLSocket tls = context.createSSLSocket()) { // a client-mode socket, as ZooKeeper's client uses
            tls.connect(server, CONNECT_TIMEOUT_MS);
            tls.setSoTimeout(READ_TIMEOUT_MS);
            tls.startHandshake();
            // TLS 1.3 servers judge the client's certificate after the client's side of the handshake is done,
            // and answer a refused one with an alert: read to hear it. Whether the client sent a certificate is
            // known by now; with the key store, only that tells a refused certificate from a missing one. The
            // alert does not: to a client that sent none, JDK 17's servers say bad_certificate and JDK 25's
            // certificate_required, whether the client has no certificate or none the server would take.
            sent = tls.getSession().getLocalCertificates() == null ? Sent.NONE : Sent.CERTIFICATE;
            InputStream in = tls.getInputStream();
            in.read(); // a server that closes at once may be at its connection limit: not a TLS verdict
            return Optional.empty();
        } catch (SocketTimeoutException e) {
            return Optional.empty(); // the server accepted TLS and waits for the session request
        } catch (SSLException e) {
            // Only a verdict on the certificates or the protocol; a handshake cut short (a busy server dropping
            // the connection) would be retried by the client, and is not reported as a TLS failure.
            Sent clientSent = sent;
            return hint(e, clientSent, config).map(hint -> new TlsFailure("the TLS handshake with " + name
                    + " failed: " + e.getMessage() + " (" + hint + ")", e));
        } catch (IOException e) {
            return Optional.empty(); // not a TLS problem: the server is down or unreachable
        }
    }

    /** What the user should check, for a handshake failure that says something about the certificates. */
    private static Optional<String> hint(SSLException e, Sent sent, ZKClientConfig config) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("PKIX")) {
            return Optional.of("the client's trust store (zookeeper.ssl.trustStore.*) does not trust the server's "
                    + "certificate");
        }
        if (message.contains("verify") && message.contains("host")) {
            return Optional.of("the server's certificate does not name the host in the connect string");
        }
        if (message.contains("Unsupported or unrecognized SSL message")) {
            return Optional.of("the server does not speak TLS on this port: is it the secureClientPort?");
        }
        if (!message.contains("alert") || (!message.contains("certificate") && !message.contains("unknown_ca"))) {
            return Optional.empty();
        }
        if (sent == Sent.CERTIFICATE) {
            return Optional.of("the server refused the client's certificate: is it signed by an authority the "
                    + "server trusts, and valid now?");
        }
        if (!hasKeyEntry(config)) {
            return Optional.of("the server requires a client certificate and none is set: zookeeper.ssl.keyStore.*");
        }
        if (sent == Sent.NONE) {
            // The server names the authorities it trusts, and the client's key manager offers only a certificate
            // that one of them signed: a certificate of another authority is never sent.
            return Optional.of("the server refused the client's certificate: the client sent none, as none in its "
                    + "key store (zookeeper.ssl.keyStore.*) is signed by an authority the server trusts");
        }
        return Optional.of("the server refused the client's certificate: is it signed by an authority the server "
                + "trusts?");
    }

    /**
     * Whether the client's key store holds a private key with its certificate: one it could send. The store loaded
     * when the probe's TLS context was made, so it loads again here; if it does not, the answer is yes, the
     * guess that does not tell the user to set what is set.
     */
    private static boolean hasKeyEntry(ZKClientConfig config) {
        try (ClientX509Util x509 = new ClientX509Util()) {
            String location = config.getProperty(x509.getSslKeystoreLocationProperty());
            if (location == null || location.isEmpty()) {
                return false;
            }
            String password = x509.getPasswordFromConfigPropertyOrFile(config,
                    x509.getSslKeystorePasswdProperty(), x509.getSslKeystorePasswdPathProperty());
            KeyStore store = X509Util.loadKeyStore(location, password,
                    config.getProperty(x509.getSslKeystoreTypeProperty()));
            for (Enumeration<String> aliases = store.aliases(); aliases.hasMoreElements(); ) {
                if (store.isKeyEntry(aliases.nextElement())) {
                    return true;
                }
            }
            return false;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Why a TLS client could not connect; the cause of the {@code ConnectionLossException} its operation fails
     * with. Such a failure is not retried: another attempt would be refused the same way.
     */
    public static final class TlsFailure extends SSLException {
        private static final long serialVersionUID = 1L;

        private TlsFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
