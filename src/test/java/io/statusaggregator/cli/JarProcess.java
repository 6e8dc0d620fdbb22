package io.statusaggregator.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A command of the packaged application that runs until stopped ({@code run}, {@code watch}, {@code alerts}), in a
 * process of its own as the README starts it ({@code java -jar target/quarkus-app/quarkus-run.jar ...}): standard
 * output read line by line as it comes, so that a test can wait on what it shows; standard error kept in a file.
 */
final class JarProcess implements AutoCloseable {
    private static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    private static final Duration STOP_WITHIN = Duration.ofSeconds(30);

    private final Process process;
    private final Path err;
    private final List<String> out = new ArrayList<>();
    private final Thread reader;

    private JarProcess(Process process, Path err) {
        this.process = process;
        this.err = err;
        this.reader = new Thread(this::readOut, "jar-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** What a command that ends on its own left: its exit status, standard output and standard error. */
    record Finished(int exitCode, String out, String err) {
    }

    /**
     * Runs a command that ends on its own ({@code compute}, {@code upgrade-check}, {@code describe}) to its end, 60 s
     * at most: the JVM's options {@code jvm}, the environment this process's plus {@code environment}, {@code stdin}
     * as its standard input.
     */
    static Finished run(List<String> jvm, Map<String, String> environment, byte[] stdin, String... args)
            throws IOException, InterruptedException {
        return run(Duration.ofSeconds(60), jvm, environment, stdin, args);
    }

    /** {@link #run(List, Map, byte[], String...)}, for a command that may take up to {@code within}. */
    static Finished run(Duration within, List<String> jvm, Map<String, String> environment, byte[] stdin, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvm);
        command.addAll(List.of("-jar", JAR.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("out", ".txt");
        Path err = Files.createTempFile("err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().write(stdin);
        process.getOutputStream().close();
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the command did not finish within " + within);
        }
        return new Finished(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Starts the jar with these arguments, its environment this process's plus {@code environment}. */
    static JarProcess start(Map<String, String> environment, String... args) throws IOException {
        return start(List.of(), environment, args);
    }

    /** {@link #start(Map, String...)} with the JVM's options {@code jvm}. */
    static JarProcess start(List<String> jvm, Map<String, String> environment, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvm);
        command.addAll(List.of("-jar", JAR.toString()));
        command.addAll(List.of(args));
        Path err = Files.createTempFile(args.length == 0 ? "run" : args[0], ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
        builder.environment().putAll(environment);
        return new JarProcess(builder.start(), err);
    }

    private void readOut() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                synchronized (out) {
                    out.add(line);
                    out.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process is gone: what it printed is all there is.
        }
    }

    /** Standard output so far, line by line. */
    List<String> out() {
        synchronized (out) {
            return List.copyOf(out);
        }
    }

    /** Standard error so far. */
    String err() {
        try {
            return Files.readString(err, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until standard output so far satisfies {@code shown}; fails with what it printed when the deadline passes
     * or the process ends first.
     */
    void awaitOut(Duration deadline, Predicate<List<String>> shown, String what) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        synchronized (out) {
            while (!shown.test(List.copyOf(out))) {
                long left = end - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !reader.isAlive()) {
                    throw new AssertionError((process.isAlive() ? "not within " + deadline : "the process ended first") + ": " + what
                            + "\nstandard output:\n" + String.join("\n", out) + "\nstandard error:\n" + err());
                }
                out.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 500)));
            }
        }
    }

    /** Waits until standard error so far contains {@code line}; fails with what it printed when the deadline passes. */
    void awaitErr(Duration deadline, String line) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (!err().contains(line)) {
            if (System.nanoTime() > end || !process.isAlive()) {
                throw new AssertionError((process.isAlive() ? "not within " + deadline : "the process ended first") + ": "
                        + line + "\nstandard error:\n" + err());
            }
            Thread.sleep(20); // polling a file another process writes: no event to wait on
        }
    }

    /**
     * SIGTERM, as Kubernetes or a service manager stops a process; waits for it to end and for its last output.
     *
     * @return the exit status
     */
    int stop() throws InterruptedException {
        // Through the process handle: Process.destroy() also closes the pipes, and what the command prints as it
        // stops would be lost.
        process.toHandle().destroy();
        if (!process.waitFor(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("not stopped within " + STOP_WITHIN + " of SIGTERM; standard error:\n" + err());
        }
        reader.join(Duration.ofSeconds(5).toMillis());
        return process.exitValue();
    }

    /**
     * Lines in blocks, each ended by an empty line (the last may not be yet): how the live table prints one table after
     * another, and {@code watch} one view after another when its standard output is not a terminal.
     */
    static List<List<String>> blocks(List<String> lines) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> block = new ArrayList<>();
        for (String line : lines) {
            if (line.isEmpty()) {
                blocks.add(block);
                block = new ArrayList<>();
            } else {
                block.add(line);
            }
        }
        if (!block.isEmpty()) {
            blocks.add(block);
        }
        return blocks;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
