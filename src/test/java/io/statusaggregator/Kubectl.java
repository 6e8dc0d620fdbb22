package io.statusaggregator;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The real kubectl, for tests that run it as a user would: found, started and its output read. */
public final class Kubectl {
    private Kubectl() {
    }

    /** What a finished kubectl left: its exit status, standard output and standard error. */
    public record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    /** A kubectl started in the background; {@link #finish} waits for it. */
    public static final class Running {
        private final Process process;
        private final Path out;
        private final Path err;

        private Running(Process process, Path out, Path err) {
            this.process = process;
            this.out = out;
            this.err = err;
        }

        /** Waits for it to exit; one that has not by {@code timeout} is killed and fails the test. */
        public Result finish(Duration timeout) throws IOException, InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                fail("kubectl did not exit within " + timeout + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        }
    }

    /** {@code kubectl ARGS} with {@code KUBECONFIG=kubeconfig}, started; standard output and error go to files. */
    public static Running start(Path kubeconfig, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(path()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("kubectl", ".out");
        Path err = Files.createTempFile("kubectl", ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        return new Running(builder.start(), out, err);
    }

    /** {@code kubectl ARGS} with {@code KUBECONFIG=kubeconfig}, to its end (at most {@code timeout}). */
    public static Result run(Path kubeconfig, Duration timeout, String... args) throws IOException, InterruptedException {
        return start(kubeconfig, args).finish(timeout);
    }

    /** kubectl: system property or environment variable KUBECTL, else on the PATH; missing fails the test, loudly. */
    public static String path() {
        Optional<String> configured = Optional.ofNullable(System.getProperty("kubectl")).or(() -> Optional.ofNullable(System.getenv("KUBECTL")));
        if (configured.isPresent()) {
            return configured.get();
        }
        List<Path> candidates = new ArrayList<>();
        for (String dir : Optional.ofNullable(System.getenv("PATH")).orElse("").split(java.io.File.pathSeparator)) {
            if (!dir.isBlank()) {
                candidates.add(Path.of(dir, "kubectl"));
            }
        }
        candidates.add(Path.of("/usr/bin/kubectl"));
        candidates.add(Path.of("/usr/local/bin/kubectl"));
        return candidates.stream().filter(Files::isExecutable).findFirst().map(Path::toString).orElseGet(() -> {
            fail("kubectl not found on the PATH (nor /usr/bin, /usr/local/bin): these tests run it (`kubectl kustomize`, "
                    + "`kubectl wait`). Install kubectl 1.31 or later (CI does), or point -Dkubectl= or KUBECTL at it.");
            return null;
        });
    }
}
