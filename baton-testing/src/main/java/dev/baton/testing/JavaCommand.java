package dev.baton.testing;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Builds the command line of a child JVM started by the kit: the java binary of this JVM, small-footprint
 * flags for fast start on a busy machine, the kit's marker property and a classpath.
 */
final class JavaCommand {

    private JavaCommand() {
    }

    /** The java launcher of the running JVM. */
    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The classpath of this JVM, which holds ZooKeeper, SLF4J (and a backend in tests) and the kit, with every
     * entry made absolute: children run in directories of their own, where relative entries (as a launcher
     * script's {@code -cp lib/*}) would find nothing.
     */
    static String currentClasspath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .map(entry -> entry.endsWith("*")
                        ? Path.of(entry.substring(0, entry.length() - 1)).toAbsolutePath() + File.separator + "*"
                        : Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    /**
     * The full command.
     *
     * @param heap the -Xmx value, e.g. {@code "128m"}
     * @param jvmArgs extra JVM arguments, placed after the defaults so they win
     */
    static List<String> build(String classpath, String heap, List<String> jvmArgs, String mainClass,
            List<String> args) {
        Objects.requireNonNull(classpath, "classpath");
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.add("-Xmx" + heap);
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:-UsePerfData"); // no hsperfdata files in /tmp
        command.add("-Xshare:auto");
        command.add("-Djava.net.preferIPv4Stack=true");
        command.add("-D" + KitResources.MARKER_PROPERTY + "=" + KitResources.marker());
        // For slf4j-simple, if it is the backend on the classpath: log to stderr (a file), with times.
        command.add("-Dorg.slf4j.simpleLogger.logFile=System.err");
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }
}
