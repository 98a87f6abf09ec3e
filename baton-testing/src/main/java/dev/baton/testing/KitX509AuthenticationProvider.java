package dev.baton.testing;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.zookeeper.server.auth.X509AuthenticationProvider;

/**
 * ZooKeeper's {@code x509} authentication for the kit's in-process TLS servers: a session whose TLS client
 * certificate was issued by a {@link TlsCertificates} authority of this JVM is authenticated as the certificate's
 * subject ({@code x509:CN=alice,O=Baton test kit}), so ACLs can name it.
 *
 * <p>ZooKeeper finds its {@code x509} provider by class name in the JVM-wide system property
 * {@code zookeeper.authProvider.x509} and makes it with a no-argument constructor, and its stock provider would
 * read the key and trust stores from JVM-wide system properties too, which would leak into every client's
 * {@code ZKClientConfig} in the JVM. The kit registers this class instead when an {@link EmbeddedZooKeeper} with
 * TLS starts; each server's TLS handshake has already checked the client's certificate against that server's own
 * trust store, and this provider then names the client. Not meant to be used directly.
 *
 * <p>Thread-safety: safe for concurrent use.
 */
public final class KitX509AuthenticationProvider extends X509AuthenticationProvider {
    private static final List<X509Certificate> AUTHORITIES = new CopyOnWriteArrayList<>();

    /** Made by ZooKeeper's provider registry. */
    public KitX509AuthenticationProvider() {
        super(new KitTrustManager(), null);
    }

    /** Adds an authority whose clients this provider accepts. */
    static void trust(X509Certificate authority) {
        AUTHORITIES.add(authority);
    }

    /** Trusts the chains of every authority registered so far, checked by the JDK's PKIX validation. */
    private static final class KitTrustManager extends X509ExtendedTrustManager {

        private static X509ExtendedTrustManager current() throws CertificateException {
            try {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                int n = 0;
                for (X509Certificate authority : AUTHORITIES) {
                    store.setCertificateEntry("ca-" + n++, authority);
                }
                TrustManagerFactory factory = TrustManagerFactory.getInstance(
                        TrustManagerFactory.getDefaultAlgorithm());
                factory.init(store);
                for (TrustManager tm : factory.getTrustManagers()) {
                    if (tm instanceof X509ExtendedTrustManager x509) {
                        return x509;
                    }
                }
                throw new CertificateException("no X.509 trust manager in " + factory.getAlgorithm());
            } catch (GeneralSecurityException | java.io.IOException e) {
                throw new CertificateException("cannot build the kit's trust manager", e);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            current().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            current().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            current().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("the kit's x509 provider authenticates clients only");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return AUTHORITIES.toArray(new X509Certificate[0]);
        }
    }
}
