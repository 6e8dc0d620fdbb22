package io.statusaggregator.bench;

import io.statusaggregator.embedded.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The harness's broker in a JVM of its own, as production runs Kafka apart from the aggregator: what the broker does
 * (its request threads, and the collector and compiler working for it) is then not in the harness's process, whose
 * CPU and heap the figures read. The child prints its bootstrap address, then runs until the harness closes its
 * standard input (or dies, which closes it too).
 */
final class BrokerProcess {
    /** The broker's heap: Kafka's own default for a broker (its start script's -Xmx1G -Xms1G). */
    private static final List<String> HEAP = List.of("-Xms1g", "-Xmx1g");
    private static final String READY = "bootstrap ";

    private BrokerProcess() {
    }

    /** The child. */
    public static void main(String[] args) throws Exception {
        Bench.quietLogging();
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            System.out.println(READY + kafka.bootstrapServers());
            System.out.flush();
            while (System.in.read() != -1) {
                // nothing comes: the end of the stream is the signal to stop
            }
        }
        Runtime.getRuntime().halt(0);
    }

    /** A broker's JVM, and the address it printed. */
    record Started(Process process, String bootstrapServers) {
    }

    /** Starts the child on the harness's class path; returns once it prints its address. */
    static Started start() throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(Bench.java()));
        command.addAll(HEAP);
        command.addAll(List.of(Bench.LOG_MANAGER, "-cp", System.getProperty("java.class.path"), BrokerProcess.class.getName()));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith(READY)) {
                // Whatever it prints later is passed on, so that a full pipe never stops the broker.
                Thread drain = new Thread(() -> out.lines().forEach(System.err::println), "broker-output");
                drain.setDaemon(true);
                drain.start();
                return new Started(child, line.substring(READY.length()));
            }
        }
        child.destroyForcibly();
        throw new IllegalStateException("the broker's JVM exited before it printed its address (exit " + waitFor(child) + ")");
    }

    /** Stops the child: its standard input closed, then, after 30 s, killed. */
    static void stop(Process child) throws IOException, InterruptedException {
        child.getOutputStream().close();
        if (!child.waitFor(30, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int waitFor(Process child) {
        try {
            return child.waitFor(10, TimeUnit.SECONDS) ? child.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
