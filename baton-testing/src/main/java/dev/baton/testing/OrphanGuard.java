package dev.baton.testing;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Entry point of the kit's server JVMs: runs another main class ({@code args[0]}, with the remaining
 * arguments), and halts this JVM as soon as its standard input reaches end-of-file, which happens when the
 * parent test JVM dies, even by SIGKILL, when no shutdown hook can clean up. The parent keeps the pipe open
 * and never writes to it.
 */
final class OrphanGuard {

    private OrphanGuard() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length == 0) {
            System.err.println("usage: OrphanGuard <main class> [args...]");
            System.exit(2);
        }
        Thread guard = new Thread(OrphanGuard::haltAtEndOfInput, "baton-orphan-guard");
        guard.setDaemon(true);
        guard.start();
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void haltAtEndOfInput() {
        InputStream in = System.in;
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // The parent never writes; ignore anything that arrives.
            }
        } catch (IOException e) {
            // Treated as end-of-input.
        }
        System.err.println("baton-orphan-guard: parent gone (stdin closed), halting");
        Runtime.getRuntime().halt(3);
    }
}
