package dev.baton.testing;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A key store or trust store file written by {@link TlsCertificates}, with what ZooKeeper's
 * {@code zookeeper.ssl.keyStore.*} / {@code zookeeper.ssl.trustStore.*} settings need to open it.
 *
 * @param path the file (PKCS#12, named {@code *.p12}), inside the certificates' temporary directory
 * @param password the store's password (random, made with the store)
 * @param type the store type, {@code "PKCS12"}
 */
public record KeyStoreFile(Path path, String password, String type) {

    /**
     * Checks the parts.
     *
     * @param path the file
     * @param password the password
     * @param type the store type
     * @throws NullPointerException if an argument is null
     */
    public KeyStoreFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(type, "type");
    }

    /** The path and type; never the password. */
    @Override
    public String toString() {
        return "KeyStoreFile[" + path + ", " + type + "]";
    }
}
