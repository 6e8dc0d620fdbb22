package io.statusaggregator.cli;

import io.quarkus.runtime.Quarkus;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The exit of a command that runs until stopped ({@code run}, {@code alerts}) when the loop it runs stops on a fault:
 * status 3, so that a restart (the pod's, in Kubernetes) takes over rather than a process live on doing nothing.
 */
final class FaultExit {
    private static final Logger LOG = Logger.getLogger(FaultExit.class);
    /** The exit status of a command whose loop stopped on a fault. */
    static final int STATUS = 3;

    private volatile boolean faulted;

    /** What the loop tells of its fault: says why the process exits, {@code restart} being what the restart does. */
    Consumer<Throwable> onFault(String restart) {
        return fault -> {
            faulted = true;
            LOG.errorf("exiting with status %d: %s", STATUS, restart);
            Quarkus.asyncExit(STATUS);
        };
    }

    /** The command's exit status: {@link #STATUS} after a fault, else {@code otherwise}. */
    int status(int otherwise) {
        return faulted ? STATUS : otherwise;
    }
}
