package dev.baton;

import java.util.Arrays;
import java.util.Objects;

/**
 * One authorization the client adds to every session it opens ({@code ZooKeeper.addAuthInfo}).
 *
 * @param scheme the authentication scheme, such as {@code "digest"}
 * @param auth the scheme-specific credentials, such as {@code "user:password"} as bytes
 */
public record AuthInfo(
        String scheme,
        // Bytes, as ZooKeeper's addAuthInfo takes them; the constructor and the accessor copy them, and equals,
        // hashCode and toString below compare and show the content.
        @SuppressWarnings("ArrayRecordComponent") byte[] auth) {

    /**
     * Validates and copies the credentials.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the scheme is blank
     * @param scheme the scheme
     * @param auth the auth
     */
    public AuthInfo {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(auth, "auth");
        if (scheme.isBlank()) {
            throw new IllegalArgumentException("scheme must not be blank, was \"" + scheme + "\"");
        }
        auth = auth.clone();
    }

    /** {@return a copy of the credentials} */
    @Override
    public byte[] auth() {
        return auth.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthInfo other && scheme.equals(other.scheme) && Arrays.equals(auth, other.auth);
    }

    @Override
    public int hashCode() {
        return 31 * scheme.hashCode() + Arrays.hashCode(auth);
    }

    @Override
    public String toString() {
        return "AuthInfo[scheme=" + scheme + ", auth=<" + auth.length + " bytes>]";
    }
}
