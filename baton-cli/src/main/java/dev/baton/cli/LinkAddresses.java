package dev.baton.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * How a chaos client reaches each server through its private link: the server's own client address, as the
 * ensemble's configuration ({@code /zookeeper/config}) names it, mapped to the link's address for it. A client that
 * follows a reconfigured ensemble maps the configuration's addresses through this, so it keeps going through its
 * link (which the partitions cut) rather than straight to the servers.
 *
 * @param addresses server address to link address, e.g. {@code 127.0.0.1:21811 -> 127.0.0.1:40123}; empty when
 *     the client does not follow the ensemble
 */
record LinkAddresses(Map<String, String> addresses) {
    /** A client that keeps to its connect string. */
    static final LinkAddresses NONE = new LinkAddresses(Map.of());

    LinkAddresses {
        addresses = Map.copyOf(addresses);
    }

    /** Whether the client follows the ensemble's configuration. */
    boolean follow() {
        return !addresses.isEmpty();
    }

    /** The link's addresses for a connect string of server addresses; an address not mapped stays as it is. */
    String toLinks(String connectString) {
        int slash = connectString.indexOf('/');
        String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
        String chroot = slash < 0 ? "" : connectString.substring(slash);
        String mapped = Arrays.stream(hosts.split(",", -1)).map(String::strip)
                .map(a -> addresses.getOrDefault(a, a)).collect(Collectors.joining(","));
        return mapped + chroot;
    }

    /**
     * The connect string a client uses, starting from {@code connectString} (its link's): what its library's
     * ensemble provider answers, and is told of a reconfiguration through.
     */
    Current current(String connectString) {
        return new Current(connectString);
    }

    /** See {@link #current(String)}. Thread-safe. */
    final class Current {
        private volatile String connectString;

        private Current(String connectString) {
            this.connectString = connectString;
        }

        /** The connect string now. */
        String get() {
            return connectString;
        }

        /** A reconfigured ensemble's servers, mapped to the link's addresses. */
        void follow(String servers) {
            connectString = toLinks(servers);
        }
    }

    /** The form passed on the driver protocol: {@code server>link,server>link}, or {@code -} for none. */
    String format() {
        if (addresses.isEmpty()) {
            return "-";
        }
        return addresses.entrySet().stream().map(e -> e.getKey() + ">" + e.getValue()).sorted()
                .collect(Collectors.joining(","));
    }

    /** Parses {@link #format()}. */
    static LinkAddresses parse(String text) {
        if (text.equals("-")) {
            return NONE;
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) {
            int arrow = pair.indexOf('>');
            if (arrow < 0) {
                throw new IllegalArgumentException("not server>link: '" + pair + "'");
            }
            map.put(pair.substring(0, arrow), pair.substring(arrow + 1));
        }
        return new LinkAddresses(map);
    }
}
