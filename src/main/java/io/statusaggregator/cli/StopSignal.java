package io.statusaggregator.cli;

import io.quarkus.runtime.ApplicationLifecycleManager;
import sun.misc.Signal;

/**
 * SIGTERM as a request to stop, for the commands that run until stopped: {@code run}, {@code watch} and {@code alerts}.
 *
 * <p>Left to the JVM, SIGTERM starts its shutdown at once: Quarkus stops the application in its shutdown hook (and
 * with it what {@link StartedParts} holds), but the process then exits with 143 (128 + 15) whatever the command would
 * have returned, and a user, a script or Kubernetes reads 143 as a failure. Handled here, SIGTERM only asks: the
 * command's own thread stops what it started and returns, Quarkus stops, and the process exits with the command's
 * status, 0 for a clean stop. For {@code run} it is handled from {@code main} on ({@link #install}), so that a stop
 * while Quarkus or the command starts is a request too: the start ends at its next stage and stops what it started
 * (left to the JVM, its shutdown stopped the parts under the starting thread, which failed with a stack trace and
 * left the broker's directory behind). Until a command calls {@link #onSigterm} or {@link #install}, and for the
 * commands that never do, SIGTERM is the JVM's. SIGINT (Ctrl-C) stays the JVM's too: a graceful stop through the
 * same shutdown hook, and 130, as for any program interrupted at a terminal.
 */
final class StopSignal {
    private static volatile boolean requested;
    private static volatile Runnable action = () -> { };

    private StopSignal() {
    }

    /** From now on, SIGTERM is a request: {@link #requested} says whether one came; nothing else is done yet. */
    static void install() {
        Signal.handle(new Signal("TERM"), signal -> {
            requested = true;
            action.run();
        });
    }

    /**
     * From now on, SIGTERM runs {@code stop} (on a thread of the JVM's, so it must not block) instead of the JVM's
     * shutdown; at once if one came already.
     */
    static void onSigterm(Runnable stop) {
        action = stop;
        install();
        if (requested) {
            stop.run();
        }
    }

    /** Whether a SIGTERM has come since {@link #install}. */
    static boolean requested() {
        return requested;
    }

    /**
     * Whether the JVM's shutdown has begun: Ctrl-C, or a SIGTERM that came before {@link #onSigterm} (while Quarkus
     * started). Quarkus' shutdown hook then waits for the command to return, so a command that loops on its own thread
     * must look at this too, or it runs on until its own end.
     */
    static boolean jvmStopping() {
        return ApplicationLifecycleManager.isVmShuttingDown();
    }
}
