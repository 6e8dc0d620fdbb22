package io.statusaggregator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rules that keep the code a newcomer can walk into (docs/layout.md): packages in one direction,
 * the status rules and their model pure, no class too long to read. Each fails the build when broken.
 */
class HouseRulesTest {
    private static final String ROOT = "io.statusaggregator";
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // The harness is built with -Pbench only; JMH's generated classes are not the house's. The benchmark in the
            // aggregation package (beside the book it drives) keeps the house's rules.
            .withImportOption(location -> !location.contains("/bench/") && !location.contains("/jmh_generated/"))
            .importPackages(ROOT);

    @Test
    void packagesDependOnEachOtherInOneDirectionOnly() {
        SlicesRuleDefinition.slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String name = javaClass.getPackageName();
                return name.equals(ROOT) || name.startsWith(ROOT + ".")
                        ? SliceIdentifier.of(name.equals(ROOT) ? "(wiring)" : name.substring(ROOT.length() + 1))
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the application's packages";
            }
        }).should().beFreeOfCycles().check(MAIN);
    }

    /**
     * The layers of docs/layout.md, from the bottom: a package may use its own layer and those below it, never one
     * above. The stages come in the data's order: the topics' contract, then what writes to the topics and to the API
     * server, aggregation, the feeds' consumers, and the wiring and the command line on top.
     */
    static final List<List<String>> LAYERS = List.of(
            List.of("model"),
            List.of("model.json", "versions", "threads", "kubernetes"),
            List.of("versions.json", "rules"),
            List.of("describe", "topics"),
            List.of("ingest", "writeback"),
            List.of("management"),
            List.of("aggregation"),
            List.of("alerts", "fleet", "watch"),
            List.of("embedded"),
            List.of("(wiring)"),
            List.of("operations", "preflight", "http", "access"),
            List.of("cli"));

    @Test
    void packagesUseOnlyTheirOwnLayerAndTheLayersBelow() {
        List<String> upward = MAIN.stream().flatMap(from -> from.getDirectDependenciesFromSelf().stream())
                .filter(dependency -> layer(dependency.getOriginClass()) < layer(dependency.getTargetClass()))
                .map(dependency -> slice(dependency.getOriginClass()) + " -> " + slice(dependency.getTargetClass())
                        + ": " + dependency.getDescription())
                .distinct().sorted().toList();
        assertEquals(List.of(), upward, "a package uses only its own layer and those below (docs/layout.md)");
    }

    private static String slice(JavaClass javaClass) {
        String name = javaClass.getPackageName();
        return name.equals(ROOT) ? "(wiring)" : name.startsWith(ROOT + ".") ? name.substring(ROOT.length() + 1) : null;
    }

    /** The layer of a class of the application, or -1 for the JDK's and libraries' (which any layer may use). */
    private static int layer(JavaClass javaClass) {
        String slice = slice(javaClass);
        if (slice == null) {
            return -1;
        }
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(slice)) {
                return i;
            }
        }
        throw new AssertionError("package " + slice + " is in no layer: add it to LAYERS and to docs/layout.md");
    }

    @Test
    void theRulesTheVersionsAndTheModelAreFreeOfIoAndFrameworks() {
        // Records in, records out: the JDK's language, collections and time, and each other. JSON and YAML codecs
        // live beside them in model.json and versions.json; Kafka, Kubernetes clients and Quarkus live elsewhere.
        classes().that().resideInAnyPackage(ROOT + ".model", ROOT + ".rules", ROOT + ".versions")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java.lang..", "java.util..", "java.time..",
                        "java.math..", ROOT + ".model", ROOT + ".rules", ROOT + ".versions")
                .because("the status rules are pure functions of their inputs, unit-tested without I/O")
                .check(MAIN);
    }

    @Test
    void everyClassMarkedPureIsFreeOfIoThreadsAndFrameworks() {
        List<String> impure = MAIN.stream().filter(HouseRulesTest::markedPure)
                .flatMap(from -> from.getDirectDependenciesFromSelf().stream())
                .filter(dependency -> !pureToUse(dependency.getTargetClass()))
                .map(dependency -> dependency.getDescription()).distinct().sorted().toList();
        assertEquals(List.of(), impure, "a class marked @Pure decides and does no I/O (model/Pure.java)");
    }

    private static boolean markedPure(JavaClass javaClass) {
        JavaClass outermost = javaClass;
        while (outermost.getEnclosingClass().isPresent()) {
            outermost = outermost.getEnclosingClass().get();
        }
        return outermost.isAnnotatedWith(io.statusaggregator.model.Pure.class);
    }

    private static boolean pureToUse(JavaClass target) {
        JavaClass type = target.getBaseComponentType();
        String name = type.getPackageName();
        if (type.isPrimitive() || markedPure(type)) {
            return true;
        }
        // JSON text and trees are values, read and written in memory by Jackson and model.json's decoders; in-memory
        // bytes are not I/O; Kafka's murmur2 is the hash that places a key on its partition.
        return List.of("java.lang", "java.util", "java.util.function", "java.util.stream", "java.time",
                        "java.time.temporal", "java.math", "java.lang.invoke", "java.lang.runtime",
                        "java.lang.annotation", "java.nio.charset", "com.fasterxml.jackson.core",
                        "com.fasterxml.jackson.databind", "com.fasterxml.jackson.databind.node").contains(name)
                || List.of("java.io.ByteArrayOutputStream", "java.io.IOException", "java.io.UncheckedIOException",
                        "java.nio.ByteBuffer", "java.nio.CharBuffer", "org.apache.kafka.common.utils.Utils")
                        .contains(type.getName())
                || List.of(ROOT + ".model", ROOT + ".model.json", ROOT + ".rules", ROOT + ".versions").contains(name);
    }

    @Test
    void noClassIsOver500Lines() throws IOException {
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            List<String> long_ = sources.filter(p -> p.toString().endsWith(".java")).map(p -> Map.entry(p, lines(p)))
                    .filter(file -> file.getValue() > 500)
                    .map(file -> file.getKey() + ": " + file.getValue() + " lines").toList();
            assertEquals(List.of(), long_, "split these into classes a reader can hold in mind");
        }
    }

    @Test
    void noLineIsOver120Characters() throws IOException {
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            List<String> long_ = sources.filter(p -> p.toString().endsWith(".java")).sorted()
                    .flatMap(HouseRulesTest::linesOver120).toList();
            assertEquals(List.of(), long_, "wrap these lines at a natural point (an argument, a call, a clause)");
        }
    }

    /** EKS Anywhere's Cluster CRD, kept byte for byte as shipped so that it can be compared with its origin. */
    private static final Path COPIED_AS_SHIPPED = Path.of("src/main/resources/embedded/eksa-clusters-crd.yaml");

    @Test
    void noLineOfATextResourceIsOver120Characters() throws IOException {
        try (Stream<Path> resources = Files.walk(Path.of("src/main/resources"))) {
            List<String> long_ = resources
                    .filter(p -> p.getFileName().toString().matches(".*\\.(js|css|html|properties|yaml|yml)"))
                    .filter(p -> !p.equals(COPIED_AS_SHIPPED)).sorted()
                    .flatMap(HouseRulesTest::linesOver120).toList();
            assertEquals(List.of(), long_, "wrap these lines where a reader would (a clause, a declaration, a tag)");
        }
    }

    /** {@code file:line: length} of each line of {@code file} over 120 characters. */
    private static Stream<String> linesOver120(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return java.util.stream.IntStream.range(0, lines.size()).filter(i -> lines.get(i).length() > 120)
                    .mapToObj(i -> file + ":" + (i + 1) + ": " + lines.get(i).length() + " characters");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
