package io.statusaggregator.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The image's runtime on this machine, for the figures of a fresh JVM and of the command line: Java 25 (docs/image.md),
 * from {@code -Dbench.image-java-home} or Temurin's place on these machines; and what an ahead-of-time cache needs.
 */
final class ImageRuntime {
    static final String DEFAULT_HOME = "/usr/lib/jvm/temurin-25-jdk-amd64";
    /** Where the harness keeps what it makes for the image's runtime: the classes' jar, the caches. */
    static final Path WORK = Path.of("target", "bench-aot");

    /** The image's JVM options (quarkus.jib.jvm-arguments), read from application.properties. */
    static final List<String> IMAGE_JVM = imageJvmOptions();

    private ImageRuntime() {
    }

    private static List<String> imageJvmOptions() {
        // As Quarkus reads it: a value may go on over lines that end in a backslash.
        try (var in = Files.newBufferedReader(Path.of("src/main/resources/application.properties"))) {
            java.util.Properties application = new java.util.Properties();
            application.load(in);
            String options = application.getProperty("quarkus.jib.jvm-arguments", "");
            return options.isEmpty() ? List.of() : List.of(options.split(","));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String home() {
        return System.getProperty("bench.image-java-home", DEFAULT_HOME);
    }

    /** Its {@code java}, when it is there and a Java 25 or later. */
    static Optional<String> java() {
        Path java = Path.of(home(), "bin", "java");
        Path release = Path.of(home(), "release");
        if (!Files.isExecutable(java) || !Files.isReadable(release)) {
            return Optional.empty();
        }
        try {
            Optional<String> version = Files.readAllLines(release).stream().filter(l -> l.startsWith("JAVA_VERSION="))
                    .map(l -> l.substring("JAVA_VERSION=".length()).replace("\"", "")).findFirst();
            return version.filter(v -> Integer.parseInt(v.split("[.+-]")[0]) >= 25).map(v -> java.toString());
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The harness's compiled classes ({@code target/classes}) as a jar: an ahead-of-time cache archives classes from
     * jars only.
     */
    static String classesJar() throws IOException {
        Path classes = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator)).map(Path::of)
                .filter(p -> p.endsWith(Path.of("target", "classes"))).findFirst()
                .orElseThrow(() -> new IllegalStateException("no target/classes on the class path"));
        Files.createDirectories(WORK);
        Path jar = WORK.resolve("classes.jar");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarred = new JarOutputStream(out)) {
            for (Path file : files) {
                jarred.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(java.io.File.separatorChar, '/')));
                Files.copy(file, jarred);
                jarred.closeEntry();
            }
        }
        return jar.toAbsolutePath().toString();
    }

    /** What the runtime's JVM prints of itself: its first line, the version. */
    static String describe(String java) {
        try {
            Process process = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes());
            process.waitFor();
            return text.lines().skip(1).findFirst().orElse(java).trim();
        } catch (IOException e) {
            return java;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java;
        }
    }
}
