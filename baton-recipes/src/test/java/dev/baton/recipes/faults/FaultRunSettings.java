package dev.baton.recipes.faults;

import dev.baton.testing.RandomFaults.FaultKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Length and mix of a random fault run, from system properties, so CI runs a short version and a soak run can
 * go for an hour:
 * <ul>
 *   <li>{@code baton.faults.duration}: how long faults are injected ({@code 30s}, {@code 2m}, {@code 1h},
 *       {@code 500ms} or ISO-8601 {@code PT30S}); default 30 s;</li>
 *   <li>{@code baton.faults.seed}: the seed of the fault schedule; default random (printed, to replay);</li>
 *   <li>{@code baton.faults.mix}: comma-separated fault kinds, see {@link FaultKind}; default all but
 *       {@code PAUSE_CLIENT} (the clients run in the test's own JVM);</li>
 *   <li>{@code baton.faults.clients}: the number of clients; default 5;</li>
 *   <li>{@code baton.faults.sessionTimeout}: the clients' session timeout; default 4 s.</li>
 * </ul>
 *
 * @param duration how long faults are injected
 * @param seed the seed of the fault schedule
 * @param mix the fault kinds to draw from
 * @param clients the number of clients
 * @param sessionTimeout the clients' session timeout
 */
record FaultRunSettings(Duration duration, long seed, List<FaultKind> mix, int clients, Duration sessionTimeout) {

    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    /** Reads the settings from system properties. */
    static FaultRunSettings fromSystemProperties() {
        Duration duration = parseDuration(System.getProperty("baton.faults.duration", "30s"));
        String seedText = System.getProperty("baton.faults.seed", "");
        long seed = seedText.isBlank() ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seedText.strip());
        String mixText = System.getProperty("baton.faults.mix", "");
        List<FaultKind> mix = new ArrayList<>();
        if (mixText.isBlank()) {
            // Not the rolling upgrade: it needs a target line, and these tests run one release. Not a
            // reconfiguration: it needs reconfiguration on, which the peer proxies of isolate exclude.
            mix.addAll(EnumSet.complementOf(EnumSet.of(FaultKind.PAUSE_CLIENT, FaultKind.ROLLING_UPGRADE,
                    FaultKind.RECONFIGURE)));
        } else {
            Set<FaultKind> kinds = new LinkedHashSet<>();
            for (String s : mixText.split(",")) {
                if (!s.isBlank()) {
                    kinds.add(FaultKind.parse(s));
                }
            }
            mix.addAll(kinds);
        }
        if (mix.isEmpty()) {
            throw new IllegalArgumentException("baton.faults.mix names no fault: '" + mixText + "'");
        }
        int clients = Integer.parseInt(System.getProperty("baton.faults.clients", "5").strip());
        if (clients < 2) {
            throw new IllegalArgumentException("baton.faults.clients must be at least 2: " + clients);
        }
        Duration sessionTimeout = parseDuration(System.getProperty("baton.faults.sessionTimeout", "4s"));
        return new FaultRunSettings(duration, seed, List.copyOf(mix), clients, sessionTimeout);
    }

    /** Parses {@code 30s}, {@code 2m}, {@code 1h}, {@code 500ms} or ISO-8601 ({@code PT30S}). */
    static Duration parseDuration(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE_DURATION.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        return Duration.parse(text.strip().toUpperCase(Locale.ROOT));
    }

    /** Returns the command-line form that replays this run's schedule. */
    String replay() {
        return "-Dbaton.faults.duration=" + duration.toMillis() + "ms -Dbaton.faults.seed=" + seed
                + " -Dbaton.faults.mix=" + String.join(",", mix.stream().map(Enum::name).toList())
                + " -Dbaton.faults.clients=" + clients + " -Dbaton.faults.sessionTimeout="
                + sessionTimeout.toMillis() + "ms";
    }
}
